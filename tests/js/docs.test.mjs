// The README stays a front door (issue 47): short, with every page of docs/ linked from it,
// and no relative link in README.md or docs/*.md pointing at a file or a heading that is
// not there (a heading's anchor as GitHub makes it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { documentationFiles } from './readme-blocks.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

/** README.md's budget: what fits a front door (it was 249 KB when everything lived in it). */
const README_MAX_BYTES = 16 * 1024;

const FILES = documentationFiles(ROOT);
const text = (file) => readFileSync(join(ROOT, file), 'utf8');

/** `markdown` without its fenced blocks and code spans (a link inside either is not a link). */
function prose(markdown) {
  const lines = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      lines.push('');
    } else lines.push(fenced ? '' : line.replace(/`[^`\n]*`/g, '``'));
  }
  return lines.join('\n');
}

/** Every link and image target of `markdown`'s prose, with its line: `{ target, line }`. */
export function links(markdown) {
  const out = [];
  prose(markdown)
    .split('\n')
    .forEach((line, i) => {
      for (const match of line.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) out.push({ target: match[1], line: i + 1 });
    });
  return out;
}

/** A heading's anchor as GitHub makes it: the text as shown, lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading) {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return shown.replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '').replace(/ /g, '-');
}

/** The anchors of `markdown`'s headings (a repeated one gets -1, -2, … as on GitHub). */
export function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*?)#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count ? `${base}-${count}` : base);
  }
  return out;
}

test('the anchors are GitHub\'s', () => {
  assert.equal(slug("Local model (Lectern's own decoder)"), 'local-model-lecterns-own-decoder');
  assert.equal(slug('`<lectern-chat>`'), 'lectern-chat');
  assert.equal(slug('Figures (last measured)'), 'figures-last-measured');
  assert.deepEqual([...anchors('# A\n\n```\n# not a heading\n```\n## A\n### B, c.\n')], ['a', 'a-1', 'b-c']);
  assert.deepEqual(
    links('[a](x.md) `[b](y.md)` ![c](d.png)\n```\n[e](z.md)\n```\n[f](https://e.org "t")').map((l) => l.target),
    ['x.md', 'd.png', 'https://e.org'],
  );
});

test(`README.md is at most ${README_MAX_BYTES.toLocaleString('en-US')} bytes`, () => {
  const size = statSync(join(ROOT, 'README.md')).size;
  assert.ok(size <= README_MAX_BYTES, `README.md is ${size} bytes: move the detail to docs/ and link it`);
});

test('every page of docs/ is linked from README.md', () => {
  const linked = new Set(
    links(text('README.md'))
      .map(({ target }) => target.split('#')[0])
      .filter((path) => path.startsWith('docs/'))
      .map((path) => normalize(path)),
  );
  const pages = FILES.filter((file) => file.startsWith('docs/'));
  assert.ok(pages.length > 0, 'docs/ has pages');
  assert.deepEqual(pages.filter((page) => !linked.has(page)), [], 'pages of docs/ the README does not link');
});

test('every relative link of README.md and docs/*.md reaches its file, and its heading', () => {
  const headings = new Map();
  const anchorsOf = (file) => {
    if (!headings.has(file)) headings.set(file, anchors(text(file)));
    return headings.get(file);
  };
  const broken = [];
  for (const file of FILES) {
    for (const { target, line } of links(text(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const to = path ? normalize(join(dirname(file), decodeURI(path))) : file;
      if (to.startsWith('..') || !existsSync(join(ROOT, to))) {
        broken.push(`${file}:${line}: ${target} (no ${to})`);
      } else if (anchor !== undefined && to.endsWith('.md') && !anchorsOf(to).has(decodeURIComponent(anchor))) {
        broken.push(`${file}:${line}: ${target} (no heading #${anchor} in ${to})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
