// The paginated reader: page text from `lectern.page`, previous/next buttons and the arrow keys;
// each turn calls `setCurrentPage`, so `search_book` never returns text past the page shown.
const $ = (selector) => document.querySelector(selector);

/**
 * A reader over `getLectern()`'s books; `show(book)` opens one at its current page. `onPage` is
 * told of each page turned to.
 */
export function createReader(getLectern, { onError, onPage = () => {} }) {
  let book = null;
  let busy = Promise.resolve();
  const welcome = $('#page-text').textContent.trim().replace(/\s+/g, ' ');

  async function render(number) {
    const page = await getLectern().page(book.id, number);
    $('#page-text').textContent = page.text;
    $('#chapter').textContent = page.chapter ?? '';
    $('#page-number').textContent = `Page ${page.number} of ${book.pageCount}`;
    $('#prev-page').disabled = page.number <= 1;
    $('#next-page').disabled = page.number >= book.pageCount;
    document.body.dataset.page = String(page.number);
  }

  async function go(number) {
    if (!book || number < 1 || number > book.pageCount) return;
    try {
      book = await getLectern().setCurrentPage(book.id, number);
      await render(number);
      onPage(number);
    } catch (error) {
      onError(error);
    }
  }

  /** Turns are queued: a held arrow key never races two pages. */
  const turn = (delta) => {
    busy = busy.then(() => go((book?.currentPage ?? 0) + delta));
    return busy;
  };

  $('#prev-page').addEventListener('click', () => turn(-1));
  $('#next-page').addEventListener('click', () => turn(1));
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    const typing = target.closest?.('input, textarea, select, lectern-chat, [contenteditable]');
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowRight' || event.key === 'PageDown') turn(1);
    else if (event.key === 'ArrowLeft' || event.key === 'PageUp') turn(-1);
    else return;
    event.preventDefault();
  });

  /** Shows `next` at its current page (or the welcome text without one). */
  async function open(next) {
    book = next;
    $('#book-title').textContent = next ? next.title : 'No book open';
    if (!next) {
      $('#page-text').textContent = welcome;
      $('#chapter').textContent = '';
      $('#page-number').textContent = '';
      $('#prev-page').disabled = $('#next-page').disabled = true;
      return;
    }
    try {
      await render(next.currentPage);
    } catch (error) {
      $('#page-text').textContent = '';
      onError(error);
    }
  }

  return {
    /** Opens `next`, queued behind the page turns already asked for, so none lands on the new book. */
    show(next) {
      busy = busy.then(() => open(next));
      return busy;
    },
    /** Turns to page `number`, queued like the buttons' turns (so `setCurrentPage` follows). */
    goTo(number) {
      busy = busy.then(() => go(number));
      return busy;
    },
    /** Marks `sentence` on the page shown (whitespace may differ); whether it was found. */
    highlight(sentence) {
      return markSentence($('#page-text'), sentence);
    },
    get book() {
      return book;
    },
  };
}

/** A pattern matching `sentence`'s words with any whitespace between them. */
export function sentencePattern(sentence) {
  const words = sentence.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(words.join('\\s+'));
}

/** Wraps the first occurrence of `sentence` in `node`'s text in a `<mark>`, scrolled into view. */
function markSentence(node, sentence) {
  const text = node.textContent;
  const found = sentencePattern(sentence).exec(text);
  if (!found) return false;
  const mark = document.createElement('mark');
  mark.className = 'cited';
  mark.textContent = found[0];
  node.replaceChildren(text.slice(0, found.index), mark, text.slice(found.index + found[0].length));
  mark.scrollIntoView({ block: 'center' });
  return true;
}
