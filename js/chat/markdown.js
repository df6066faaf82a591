// Safe Markdown for model text: parse into plain tokens, render with
// createElement + text nodes only. Raw HTML stays literal text; links keep
// only http(s) and mailto URLs; images become links (never loaded).

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The URL to put in an href, or null: parsed without a base (so relative ones fail), allowed schemes only. */
export function safeHref(raw) {
  let url;
  try {
    url = new URL(String(raw));
  } catch {
    return null;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? url.href : null;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const ITEM = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/;

/** Block tokens: `{ type: 'paragraph'|'heading'|'code'|'list', ... }`. An unclosed fence is code so far. */
export function parseBlocks(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  let paragraph = null;
  let list = null;
  const close = () => {
    paragraph = null;
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      close();
      const body = [];
      let j = i + 1;
      while (j < lines.length && !lines[j].trimStart().startsWith(fence[1])) body.push(lines[j++]);
      blocks.push({ type: 'code', lang: fence[2] || '', text: body.join('\n'), closed: j < lines.length });
      i = j;
      continue;
    }
    if (!line.trim()) {
      close();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      blocks.push({ type: 'heading', text: heading[1] });
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      if (!list || list.ordered !== ordered) {
        paragraph = null;
        list = { type: 'list', ordered, start: ordered ? Number(item[2]) : 1, items: [] };
        blocks.push(list);
      }
      list.items.push(item[3]);
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += '\n' + line.trim();
      continue;
    }
    if (!paragraph) {
      list = null;
      paragraph = { type: 'paragraph', text: line };
      blocks.push(paragraph);
    } else {
      paragraph.text += '\n' + line;
    }
  }
  return blocks;
}

// One inline construct at a time, leftmost first: code, strong, em, link/image, autolink.
const INLINE = new RegExp(
  [
    '(`+)([\\s\\S]+?)\\1(?!`)', // 1,2 code span
    '\\*\\*(?=\\S)([\\s\\S]+?)\\*\\*', // 3 strong
    '__(?=\\S)([\\s\\S]+?)__', // 4 strong
    '\\*(?=[^\\s*])([\\s\\S]+?)\\*', // 5 em
    '\\b_(?=[^\\s_])([\\s\\S]+?)_\\b', // 6 em
    '(!?)\\[([^\\[\\]\\n]*)\\]\\(([^()\\n]*(?:\\([^()\\n]*\\)[^()\\n]*)*)\\)', // 7,8,9 link / image
    '<([a-zA-Z][a-zA-Z0-9+.-]*:[^<>\\s]+)>', // 10 autolink
  ].join('|'),
);

/** Inline tokens: `{ type: 'text'|'code'|'strong'|'em'|'link', ... }`; a link's `href` is null when refused. */
export function parseInline(text) {
  const out = [];
  let rest = String(text);
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push({ type: 'text', text: rest });
      break;
    }
    if (m.index > 0) out.push({ type: 'text', text: rest.slice(0, m.index) });
    if (m[1] !== undefined) out.push({ type: 'code', text: m[2].replace(/^ (.*) $/s, '$1') });
    else if (m[3] !== undefined || m[4] !== undefined) out.push({ type: 'strong', children: parseInline(m[3] ?? m[4]) });
    else if (m[5] !== undefined || m[6] !== undefined) out.push({ type: 'em', children: parseInline(m[5] ?? m[6]) });
    else if (m[8] !== undefined) {
      const target = m[9].trim().split(/\s+/)[0] ?? '';
      const href = safeHref(target);
      const label = m[8] || target;
      out.push({ type: 'link', href, image: m[7] === '!', children: m[7] === '!' ? [{ type: 'text', text: label }] : parseInline(label) });
    } else {
      const href = safeHref(m[10]);
      out.push(href ? { type: 'link', href, image: false, children: [{ type: 'text', text: m[10] }] } : { type: 'text', text: m[0] });
    }
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

function el(doc, tag, part) {
  const node = doc.createElement(tag);
  if (part) node.className = part;
  return node;
}

/** Appends inline tokens to `parent` as DOM nodes (text only through text nodes). */
export function renderInline(tokens, parent, doc = parent.ownerDocument) {
  for (const token of tokens) {
    if (token.type === 'text') parent.append(doc.createTextNode(token.text));
    else if (token.type === 'code') {
      const code = el(doc, 'code');
      code.textContent = token.text;
      parent.append(code);
    } else if (token.type === 'link' && token.href) {
      const a = el(doc, 'a', token.image ? 'image-link' : '');
      a.href = token.href;
      a.rel = 'noopener noreferrer';
      a.target = '_blank';
      renderInline(token.children, a, doc);
      parent.append(a);
    } else if (token.type === 'link') {
      renderInline(token.children, parent, doc); // refused URL: its text only
    } else {
      const wrap = el(doc, token.type === 'strong' ? 'strong' : 'em');
      renderInline(token.children, wrap, doc);
      parent.append(wrap);
    }
  }
  return parent;
}

/** Block tokens as DOM nodes in a fragment. */
export function renderBlocks(blocks, doc = document) {
  const fragment = doc.createDocumentFragment();
  for (const block of blocks) {
    if (block.type === 'code') {
      const pre = el(doc, 'pre');
      const code = el(doc, 'code');
      code.textContent = block.text;
      if (block.lang) code.dataset.lang = block.lang;
      pre.append(code);
      fragment.append(pre);
    } else if (block.type === 'list') {
      const list = el(doc, block.ordered ? 'ol' : 'ul');
      if (block.ordered && block.start !== 1) list.start = block.start;
      for (const item of block.items) list.append(renderInline(parseInline(item), el(doc, 'li'), doc));
      fragment.append(list);
    } else {
      const p = el(doc, 'p', block.type === 'heading' ? 'heading' : '');
      const target = block.type === 'heading' ? p.appendChild(el(doc, 'strong')) : p;
      renderInline(parseInline(block.text), target, doc);
      fragment.append(p);
    }
  }
  return fragment;
}

/** Where `text` can be cut so that everything before is closed blocks: after the last blank line outside a fence. */
export function closedLength(text) {
  let inFence = null;
  let cut = 0;
  let offset = 0;
  for (const line of text.split('\n')) {
    const end = offset + line.length + 1;
    const fence = FENCE.exec(line);
    if (fence && !inFence) inFence = fence[1];
    else if (inFence && line.trimStart().startsWith(inFence)) inFence = null;
    else if (!inFence && !line.trim() && end <= text.length) cut = end;
    offset = end;
  }
  return cut;
}

/**
 * Renders streamed text into `container`: closed blocks once (never touched
 * again, so selection and scroll survive), the open tail again at most once a frame.
 */
export class MarkdownStream {
  #raw = '';
  #closed = 0;
  #tail;
  #frame = 0;
  constructor(container) {
    this.container = container;
    this.#tail = container.ownerDocument.createElement('div');
    this.#tail.className = 'tail';
    container.append(this.#tail);
  }
  get text() {
    return this.#raw;
  }
  append(text) {
    this.#raw += text;
    if (!this.#frame) this.#frame = requestAnimationFrame(() => this.flush());
  }
  /** Renders what is pending now. */
  flush() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    const doc = this.container.ownerDocument;
    const open = this.#raw.slice(this.#closed);
    const cut = closedLength(open);
    if (cut > 0) {
      this.#tail.before(renderBlocks(parseBlocks(open.slice(0, cut)), doc));
      this.#closed += cut;
    }
    this.#tail.replaceChildren(renderBlocks(parseBlocks(this.#raw.slice(this.#closed)), doc));
  }
  /** Replaces everything with `text` (the final answer). */
  reset(text) {
    this.#raw = '';
    this.#closed = 0;
    this.#tail.replaceChildren();
    for (const node of [...this.container.childNodes]) if (node !== this.#tail) node.remove();
    this.#raw = text;
    this.flush();
  }
  cancel() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }
}
