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
    get book() {
      return book;
    },
  };
}
