// An answer shown sentence by sentence once its check is in (`sourceCheck.sentences`): each
// sentence with its citations as links to their passages ("p. 31", dispatched on the chat as
// `lectern-source` with the sentence, for the host to turn its reader there and highlight it), an
// unsupported one marked "not in the book"; a quoted answer labelled as the book's words; and,
// when no sentence is supported, the quoted answer from the same passages under the model's.
import { h } from './dom.js';
import { pagesLabel } from './pages.js';

/** `[2]`, `[1, 3]`: a sentence's citations, taken out of what is shown (they become links). */
const CITATION = /\s*\[\d+(?:\s*,\s*\d+)*\]/g;
/** `p. 31: ` or `pp. 30–31: ` before a quote (the link shows the page). */
const QUOTE_PAGES = /^pp?\. [\d–-]+: /;

/** The "Go to" of one cited passage, with the sentence to highlight (`label`: its own page, for a quote). */
function citeButton(source, sentence, host, label = pagesLabel(source)) {
  const { bookId, startPage, endPage, via, text } = source;
  const detail = { bookId, startPage, endPage, via, text, sentence };
  const go = () => host.dispatchEvent(new CustomEvent('lectern-source', { detail, bubbles: true, composed: true }));
  return h('button', { type: 'button', part: 'cite', class: 'cite', title: `Go to ${label}`, onclick: go }, label);
}

/** One checked sentence: its words, its citations as links, and the mark when unsupported. */
function sentenceNode({ text, passages = [], supported }, sources, quoted, host) {
  const shown = text.replace(CITATION, '').replace(quoted ? QUOTE_PAGES : /^$/, '').trim();
  // A quote names its own page ("p. 31: "), narrower than its passage's.
  const own = quoted ? QUOTE_PAGES.exec(text)?.[0].replace(/^pp?\. /, 'p. ').replace(/: $/, '') : undefined;
  // A quote's marks are the chat's, not the book's: the host looks for the words within them.
  const words = quoted ? shown.replace(/^“|”$/g, '') : shown;
  const cited = passages.map((i) => sources[i]).filter(Boolean);
  return h('span', { part: supported ? 'sentence' : 'sentence unsupported', class: supported ? 'sentence' : 'sentence unsupported' },
    shown, ...cited.map((s) => [' ', citeButton(s, words, host, own)]),
    supported ? null : [' ', h('mark', { class: 'not-in-book', part: 'not-in-book' }, 'not in the book')]);
}

/** What a quoted answer's label says: the book's own words, and why. */
function quotedNote(quoted) {
  const why = quoted.reason === 'fallback'
    ? `The model could not answer${quoted.error ? ` (${quoted.error})` : ''}: these are the book's own words.`
    : "Quoted from the book: the book's own words, no model.";
  return h('p', { part: 'quoted', class: 'quoted-note', 'data-reason': quoted.reason }, why);
}

/**
 * Shows `item`'s answer sentence by sentence when `sourceCheck.sentences` came with it (else
 * leaves the answer as streamed), labels a `quoted` answer, and adds `sourceCheck.quotedAnswer`
 * under an answer none of whose sentences is supported. Returns `item`.
 */
export function showChecked(item, { sources = [], sourceCheck, quoted } = {}, host) {
  const sentences = sourceCheck?.sentences ?? [];
  const body = item.querySelector(':scope > .body');
  if (quoted) item.insertBefore(quotedNote(quoted), body?.nextSibling ?? null);
  if (body && sentences.length && sources.length) {
    const nodes = sentences.map((s) => sentenceNode(s, sources, Boolean(quoted), host));
    // A quote a paragraph; a model's sentences run on in one.
    if (quoted) body.replaceChildren(...nodes.map((node) => h('p', {}, node)));
    else body.replaceChildren(h('p', {}, ...nodes.flatMap((node, i) => (i ? [' ', node] : [node]))));
  }
  if (sourceCheck?.quotedAnswer) {
    item.append(h('div', { part: 'quoted-answer', class: 'quoted-answer' },
      h('p', { class: 'quoted-note' }, 'None of this is in the book by your page. What the book says:'),
      ...sourceCheck.quotedAnswer.split('\n\n').map((line) => h('blockquote', {}, line))));
  }
  return item;
}
