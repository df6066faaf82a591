// Opening a book: the labelled file picker, drag and drop on the drop zone, and the sample book.
const $ = (selector) => document.querySelector(selector);

/**
 * A book's id from its file's bytes (SHA-256, the first 128 bits): the same file is the same book
 * on every device, so its conversations and page sync. None where the page has no crypto.subtle
 * (an insecure origin): Lectern then gives the book an id of its own.
 */
async function contentId(bytes) {
  if (!globalThis.crypto?.subtle) return {};
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return { id: `book-${[...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}` };
}

/** `addBook`'s input for a .txt or .epub `file`, its id from its bytes; a clear error for anything else. */
export async function bookInput(file) {
  const name = file.name.replace(/\.(txt|epub)$/i, '').replace(/[-_]+/g, ' ').trim() || 'Untitled';
  if (/\.epub$/i.test(file.name) || file.type === 'application/epub+zip') {
    const epub = new Uint8Array(await file.arrayBuffer());
    return { title: name, epub, ...(await contentId(epub)) };
  }
  if (/\.txt$/i.test(file.name) || file.type.startsWith('text/')) {
    const text = await file.text();
    return { title: name, text, ...(await contentId(new TextEncoder().encode(text))) };
  }
  throw new Error(`${file.name} is neither a .txt nor an .epub file`);
}

/** Calls `open(file)` for a file picked or dropped, and `openSample()` for the sample button. */
export function wireOpening({ open, openSample }) {
  const input = $('#open-file');
  input.addEventListener('change', () => {
    const [file] = input.files;
    input.value = '';
    if (file) open(file);
  });
  const zone = $('#drop-zone');
  const over = (on) => (event) => {
    event.preventDefault();
    zone.classList.toggle('over', on);
  };
  zone.addEventListener('dragenter', over(true));
  zone.addEventListener('dragover', over(true));
  zone.addEventListener('dragleave', over(false));
  zone.addEventListener('drop', (event) => {
    over(false)(event);
    const [file] = event.dataTransfer?.files ?? [];
    if (file) open(file);
  });
  $('#open-sample').addEventListener('click', openSample);
}

/** The sample book the server offers: the Thursday fixture when present, else the short text in /samples/. */
export async function sampleFile() {
  for (const [url, title, author] of [
    ['/samples/thursday.txt', 'The Man Who Was Thursday', 'G. K. Chesterton'],
    ['/samples/sample.txt', "A few of Aesop's Fables", 'Aesop'],
  ]) {
    const response = await fetch(url).catch(() => null);
    if (!response?.ok) continue;
    const text = await response.text();
    return { title, author, text, ...(await contentId(new TextEncoder().encode(text))) };
  }
  throw new Error('the server offers no sample book');
}
