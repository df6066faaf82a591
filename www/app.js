// The reading site: open a .txt or .epub (picker, drop, or the sample), watch it being read,
// page through it, and ask about it in <lectern-chat>, bound to the open book (search_book
// never goes past the page shown; an answer's sources turn the reader to their page). Works
// offline after the first visit (sw.js).
import init, { Lectern } from '/pkg/lectern.js';
import { renderLibrary } from './site/library.js';
import { bookInput, sampleFile, wireOpening } from './site/open-book.js';
import { showBackgroundWork, startProgress } from './site/progress.js';
import { localModelThreads, readAhead, stopLocalModel } from './site/local-model.js';
import { initialChoice, localRetrieval, modelChoices, rememberChoice } from './site/provider.js';
import { downloadPromptApiModel, promptApiAvailability } from '/pkg/lectern_prompt_api.js';
import { createReader, sentencePattern } from './site/reader.js';
import { registerServiceWorker } from './site/sw-register.js';
import { createSync } from './site/sync.js';

const $ = (selector) => document.querySelector(selector);
const BOOK_KEY = 'lectern-site-book';
const chat = $('#chat');

let lectern = null;
let modelChoice = null; // the choice answering now
let choices = [];
let custom = null; // the widget's settings: this page's memory only
let siteConfig = {}; // /config.json: the mock server, the in-browser model, the embedder
let browserModel = 'unavailable'; // the Prompt API's availability (offerBrowserModel)

const showError = (error) => {
  $('#library-error').textContent = error ? `${error.name ?? 'Error'}: ${error.message}` : '';
};
const reader = createReader(() => lectern, {
  onError: showError,
  onPage: (number) => {
    readAheadSoon();
    if (reader.book) sync?.setPage(reader.book.id, number);
  },
});
let sync = null; // createSync's, once /config.json is read

/** Another device wrote to conversation `id`: the chat shows it afresh (bound again, in case it is the book's oldest). */
async function syncedConversation(id) {
  if (!lectern) return;
  if (reader.book) chat.conversationId = (await conversationOf(reader.book)).id;
  if (chat.conversationId === id) await chat.refresh();
}

/** Another device turned `bookId` to `page`: the reader shows it, if it is the open book. */
async function syncedPage(bookId, page) {
  if (reader.book?.id !== bookId || !lectern) return;
  await reader.show((await lectern.books()).find((b) => b.id === bookId) ?? null);
  readAheadSoon();
}

/** The sign-in form (when the server offers sync) and the status line. */
function wireSync() {
  const form = $('#sync-form');
  form.hidden = !sync.offered || Boolean(sync.user);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await sync.signIn($('#sync-user').value.trim(), lectern);
      form.hidden = true;
    } catch (error) {
      showError(error);
    }
  });
}

/**
 * The conversation of `book` (one a book, created on first use): the oldest, so that devices that
 * each began one before they synced all show the same.
 */
async function conversationOf(book) {
  const existing = (await lectern.conversations()).find((c) => c.bookId === book.id);
  return existing ?? lectern.createConversation({ title: `Reading ${book.title}`, bookId: book.id });
}

/** Binds the chat to `book`'s conversation (or to none). */
async function bindChat(book) {
  chat.lectern = lectern;
  if (book) chat.conversationId = (await conversationOf(book)).id;
  readAheadSoon();
}

let readAheadTimer = 0;
/** The last read-ahead (its `read` message, or null), for tests and the console. */
let readingAhead = Promise.resolve(null);
/**
 * With the in-browser model, has it read the open conversation's system prompt (the reading rules
 * at the reader's page) while the reader reads, so that a question reads only its passages and
 * itself; again after the reader settles on another page.
 */
function readAheadSoon() {
  clearTimeout(readAheadTimer);
  let done;
  readingAhead = new Promise((resolve) => (done = resolve));
  readAheadTimer = setTimeout(async () => {
    if (!lectern || !reader.book || !chat.conversationId || $('#model-choice').value !== 'local') return done(null);
    try {
      done(await readAhead(await lectern.systemPrompt(chat.conversationId)));
    } catch (error) {
      console.warn('reading ahead:', error);
      done(null);
    }
  }, 300);
}

async function refreshLibrary() {
  const books = await lectern.books();
  renderLibrary(books, reader.book?.id, { onOpen: (book) => openBook(book.id), onDelete: deleteBook });
  return books;
}

async function openBook(id) {
  showError(null);
  const book = (await lectern.books()).find((b) => b.id === id) ?? null;
  localStorage.setItem(BOOK_KEY, book?.id ?? '');
  await reader.show(book);
  await bindChat(book);
  await refreshLibrary();
}

async function deleteBook(book) {
  showError(null);
  try {
    for (const c of await lectern.conversations()) if (c.bookId === book.id) await lectern.deleteConversation(c.id);
    await lectern.deleteBook(book.id);
    const rest = await refreshLibrary();
    if (reader.book?.id === book.id) await openBook(rest[0]?.id ?? null);
  } catch (error) {
    showError(error);
  }
}

/**
 * An answer's source chosen in the chat: the reader turned to its first page, the page in view
 * (the reader's own pages to their last: going there must not move the reader back a page).
 */
async function goToSource({ bookId, startPage, endPage, via, sentence }) {
  if (reader.book?.id !== bookId) return; // the chat is bound to the open book: a stale event
  const page = sentence ? await pageHolding(bookId, startPage, endPage, sentence) : null;
  await reader.goTo(page ?? (via === 'readerPage' ? endPage : startPage));
  if (sentence) reader.highlight(sentence);
  $('#page-text').focus();
}

/** The page of `startPage`…`endPage` whose text holds `sentence` (a cited sentence's own page). */
async function pageHolding(bookId, startPage, endPage, sentence) {
  const pattern = sentencePattern(sentence);
  for (let number = startPage; number <= endPage; number++) {
    if (pattern.test((await lectern.page(bookId, number)).text)) return number;
  }
  return null;
}

/** Reads `input` (addBook's argument) into the library with a progress bar, then opens it. */
async function addBook(input) {
  showError(null);
  const progress = startProgress(input.title);
  try {
    await switching.catch(() => {}); // a model switch under way closes the instance it replaces
    // The same file again (its id is a hash of it): the book already here.
    const known = input.id && (await lectern.books()).find((b) => b.id === input.id);
    if (known) return void (await openBook(known.id));
    const book = await lectern.addBook(input, { onProgress: progress.onProgress });
    await openBook(book.id);
  } catch (error) {
    showError(error);
  } finally {
    progress.done();
  }
}

/** The model switch under way (or the last one, settled): a book chosen meanwhile waits for it. */
let switching = Promise.resolve();

/**
 * Opens Lectern with `choice`'s model (closing the previous instance) and rebinds the chat; one
 * switch at a time, so `lectern` is never a closed instance while a book is added or read.
 */
function useModel(choice) {
  const next = switching.catch(() => {}).then(() => switchModel(choice));
  switching = next;
  return next;
}

async function switchModel(choice) {
  $('#model-status').textContent = `Starting ${choice.label}…`;
  if (lectern) await lectern.close();
  await stopLocalModel();
  lectern = await Lectern.open({
    dbName: 'lectern-site',
    provider: await choice.provider(),
    retrieval: choice.retrieval,
    // A reading companion searches once or twice, then answers: a third call is the most it needs.
    limits: { maxIterations: 3 },
    // MiniLM in Lectern's worker when the server has its files (npm start fetches them): books
    // open and search by words at once, and by meaning too once their vectors are in.
    ...(siteConfig.embedder ? { embedder: siteConfig.embedder } : {}),
    onEvent: showBackgroundWork,
  });
  rememberChoice(choice.id);
  modelChoice = choice;
  $('#model-choice').value = choice.id;
  $('#model-about').textContent = choice.about ?? '';
  if (choice.id !== 'local') $('#model-status').textContent = `Answering: ${choice.label}`;
  await bindChat(reader.book);
  sync.follow(lectern).catch(showError);
}

function fillChoices(config) {
  choices = modelChoices(config, custom, browserModel);
  $('#model-choice').replaceChildren(
    ...choices.map((c) => Object.assign(document.createElement('option'), { value: c.id, textContent: c.label, title: c.about ?? '' })),
  );
}

/**
 * The browser's own model (the Prompt API): its availability, and while it must still be fetched,
 * the "Use your browser's model" button, whose click (the user activation the API requires)
 * starts the download with progress and then answers with it.
 */
async function offerBrowserModel(config) {
  browserModel = await promptApiAvailability().catch(() => 'unavailable');
  const button = $('#use-browser-model');
  button.hidden = !['downloadable', 'downloading'].includes(browserModel);
  button.onclick = () => {
    const done = downloadPromptApiModel({ onProgress: ({ loaded }) => ($('#model-status').textContent = `Downloading your browser's model: ${Math.round(loaded * 100)}%`) });
    button.disabled = true;
    done.then(async () => {
      browserModel = 'available';
      button.hidden = true;
      fillChoices(config);
      await useModel(choices.find((c) => c.id === 'browser'));
    }, (error) => {
      button.disabled = false;
      showError(error);
    });
  };
}

async function boot() {
  const config = await fetch('/config.json')
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  siteConfig = config;
  sync = createSync(config.sync, {
    onConversation: (id) => syncedConversation(id).catch(showError),
    onPage: (bookId, page) => syncedPage(bookId, page).catch(showError),
    onStatus: (text) => ($('#sync-status').textContent = text),
  });
  wireSync();
  await init();
  await offerBrowserModel(config);
  await import('/pkg/chat/index.js').catch(() => {
    chat.before(Object.assign(document.createElement('p'), { className: 'error', textContent: 'The chat widget (pkg/chat/) is not built here.' }));
  });
  fillChoices(config);
  $('#model-choice').addEventListener('change', () => useModel(choices.find((c) => c.id === $('#model-choice').value)));
  chat.addEventListener('lectern-source', (event) => goToSource(event.detail).catch(showError));
  chat.addEventListener('lectern-send', ({ detail }) => {
    // The in-browser model's passages as measured for the threads it runs on, once it has loaded.
    const threads = modelChoice?.id === 'local' ? localModelThreads() : null;
    if (threads) detail.options.maxContextTokens = localRetrieval(threads).maxContextTokens;
  });
  chat.addEventListener('lectern-settings-change', async (event) => {
    custom = event.detail;
    fillChoices(config);
    await useModel(choices.find((c) => c.id === 'custom'));
  });
  wireOpening({
    open: async (file) => {
      try {
        await addBook(await bookInput(file));
      } catch (error) {
        showError(error);
      }
    },
    openSample: async () => {
      try {
        await addBook(await sampleFile());
      } catch (error) {
        showError(error);
      }
    },
  });
  const first = initialChoice(choices);
  await useModel(first).catch(async (error) => {
    // The in-browser model (or a remembered choice) failed to start: the demo model always can.
    console.warn(`${first.label}:`, error);
    await useModel(choices.find((c) => c.id === 'demo'));
    $('#model-status').textContent = `${first.label} failed (${error.message}); answering: Demo model (no AI)`;
  });
  const books = await refreshLibrary();
  const saved = localStorage.getItem(BOOK_KEY);
  await openBook(books.find((b) => b.id === saved)?.id ?? books.at(-1)?.id ?? null);
  document.body.dataset.ready = 'true';
  // A turn runs while the widget carries its `busy` attribute (set for every turn, stopped ones too).
  registerServiceWorker(() => chat.hasAttribute('busy')).catch((error) => console.warn('service worker:', error));
}

/** For tests and the console: the open instance and book. */
window.lecternSite = {
  get lectern() {
    return lectern;
  },
  /** The model answering: `{ id, label, retrieval }`. */
  get modelChoice() {
    return modelChoice;
  },
  get book() {
    return reader.book;
  },
  get readingAhead() {
    return readingAhead;
  },
  /** The site's sync (`follower`, `user`), once /config.json is read. */
  get sync() {
    return sync;
  },
};

boot().catch((error) => {
  $('#model-status').textContent = `${error.name}: ${error.message}`;
  showError(error);
});
