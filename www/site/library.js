// The list of books: open one, delete one.
const $ = (selector) => document.querySelector(selector);

/** Renders `books` with `currentId` marked; `onOpen(book)` and `onDelete(book)` act on a row. */
export function renderLibrary(books, currentId, { onOpen, onDelete }) {
  const rows = books.map((book) => {
    const row = document.createElement('li');
    row.dataset.bookId = book.id;
    row.setAttribute('aria-current', String(book.id === currentId));
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'book-open';
    open.textContent = `${book.title} (${book.pageCount} pages)`;
    open.addEventListener('click', () => onOpen(book));
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'book-delete';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete ${book.title}`);
    remove.addEventListener('click', () => onDelete(book));
    row.append(open, remove);
    return row;
  });
  $('#books').replaceChildren(...rows);
  if (!books.length) {
    const empty = document.createElement('li');
    empty.className = 'hint';
    empty.textContent = 'No books yet.';
    $('#books').append(empty);
  }
}
