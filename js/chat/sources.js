// An answer's sources: the book passages it was given, one item per passage labelled by its
// pages ("Sources: p. 14 · p. 30–31"). An item expands to the passage (text nodes only: the book
// is outside input), how it came, and "Go to p. N", dispatched on the chat as `lectern-source` for
// the host to turn its reader there. An answer its sources do not support is marked "Not found in
// the book", its sources still listed; its sentences are shown checked one by one (checked.js).
import { showChecked } from './checked.js';
import { h } from './dom.js';
import { pagesLabel } from './pages.js';

const VIA = { readerPage: 'From your page', alwaysRetrieve: 'Found for your question', search_book: 'Searched by the assistant' };
let ids = 0;

export { pagesLabel };

/** The passage, how it came, and "Go to", which tells the host (`lectern-source` on the chat). */
function passage(source, how, id, host) {
  const { bookId, startPage, endPage, via, text } = source;
  const go = () => host.dispatchEvent(new CustomEvent('lectern-source', { detail: { bookId, startPage, endPage, via, text }, bubbles: true, composed: true }));
  return h('div', { part: 'source-text', class: 'source-text', id },
    h('blockquote', {}, text),
    h('div', { class: 'row' }, h('span', { class: 'via' }, how),
      h('button', { type: 'button', part: 'source-go', class: 'source-go', onclick: go }, `Go to ${pagesLabel(source)}`)));
}

/** One source: its pages as a toggle (`aria-expanded`); its passage, built when first opened. */
function sourceItem(source, host) {
  const how = VIA[source.via] ?? source.via;
  const id = `source-${++ids}`;
  const item = h('li', { part: 'source', class: 'source', 'data-via': source.via });
  let panel = null;
  const flip = () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    panel ??= item.appendChild(passage(source, how, id, host));
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    item.classList.toggle('open', open);
  };
  const toggle = h('button', { type: 'button', class: 'source-toggle', title: how, 'aria-expanded': 'false', 'aria-controls': id, onclick: flip }, pagesLabel(source));
  item.append(toggle);
  return item;
}

/**
 * Adds to an answer's `item` its sources (`{ sources, sourceCheck }` of a finished turn, a
 * `finish` event or a stored message) and, when the check found it unsupported, the "Not found
 * in the book" mark; "Go to p. N" dispatches `lectern-source` on `host` (the chat). Returns `item`.
 */
export function showSources(item, { sources, sourceCheck, quoted } = {}, host) {
  showChecked(item, { sources, sourceCheck, quoted }, host);
  if (sourceCheck?.grounded === false) {
    const words = (sourceCheck.unsupported ?? []).join(', ');
    const note = words ? `Not in its sources: ${words}` : 'Not supported by its sources';
    item.append(h('p', { part: 'not-found', class: 'not-found', title: note }, 'Not found in the book',
      h('span', { class: 'visually-hidden' }, ` (${note})`)));
  }
  if (sources?.length) {
    item.append(h('div', { part: 'sources', class: 'sources', role: 'group', 'aria-label': 'Sources' },
      h('span', { 'aria-hidden': 'true' }, 'Sources:'),
      h('ul', {}, sources.map((s) => sourceItem(s, host)))));
  }
  return item;
}
