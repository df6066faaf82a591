// The part of Playwright's Browser / BrowserContext / Page API the JS flows
// use, over WebDriver classic for WebKitGTK (playwright-core drives only its
// own WebKit build). A context is one WebKitWebDriver session (own storage);
// its pages are windows. An evaluation starts in the page and is polled, so
// one page's long `evaluate` never holds up another page's commands.
// What it cannot see: errors thrown before a document's first command (the
// hooks install after load), requests other than resource loads, and service
// workers it cannot block.
import { writeFile } from 'node:fs/promises';
import { WebKitSession } from './driver.mjs';
import { INSTALL_HOOKS, POLL_EVALUATION, startEvaluation, startHandle } from './in-page.mjs';
import { Keyboard } from './keyboard.mjs';
import { Locator, matcher } from './locator.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let evaluations = 0;

/** The longest an evaluation may run before it fails the test (none of the flows' should come near). */
const EVALUATION_TIMEOUT_MS = 240_000;

/** Puts back the `undefined`s an evaluation's JSON marked (`{ __wdUndefined: 1 }`). */
function revive(value) {
  if (value === null || typeof value !== 'object') return value;
  if (value.__wdUndefined === 1) return undefined;
  for (const key of Object.keys(value)) value[key] = revive(value[key]);
  return value;
}

/** Starts the browser: contexts, and pages with a context of their own. */
export async function launchWebKit() {
  return new WebKitBrowser();
}

class WebKitBrowser {
  contexts = new Set();

  async newContext() {
    const context = new WebKitContext(this, await WebKitSession.start());
    this.contexts.add(context);
    return context;
  }

  /** A page in a context of its own, closed with it. */
  async newPage() {
    const context = await this.newContext();
    const page = await context.newPage();
    page.ownsContext = true;
    return page;
  }

  /**
   * Not Playwright's: a page in a context of its own, opened as a tab behind
   * the session's first window, so hidden (`document.hidden`), as a tab the
   * reader switched away from.
   */
  async newBackgroundPage() {
    const context = await this.newContext();
    const page = await context.newPage({ type: 'tab' });
    page.ownsContext = true;
    return page;
  }

  async close() {
    await Promise.all([...this.contexts].map((c) => c.close()));
  }
}

class WebKitContext {
  constructor(browser, session) {
    this.owner = browser;
    this.session = session;
    this.current = null; // the window commands go to
    // The session's first window stays open (blank) so closing every page keeps the session.
  }

  browser() {
    return this.owner;
  }

  /** A page in a window of its own (shown: a tab behind another is hidden, and WebKit throttles its timers). */
  async newPage({ type = 'window' } = {}) {
    const handle = await this.session.exclusive(async (command) => (await command('POST', '/window/new', { type })).handle);
    return new WebKitPage(this, handle);
  }

  /** Runs `work(command)` with `handle` the current window. */
  inWindow(handle, work) {
    return this.session.exclusive(async (command) => {
      if (this.current !== handle) {
        await command('POST', '/window', { handle });
        this.current = handle;
      }
      return work(command);
    });
  }

  async close() {
    this.owner.contexts.delete(this);
    await this.session.close();
  }
}

class WebKitPage {
  constructor(context, handle) {
    this.owner = context;
    this.handle = handle;
    this.listeners = { pageerror: [], console: [], request: [] };
    this.address = 'about:blank';
    this.keyboard = new Keyboard(this);
  }

  context() {
    return this.owner;
  }

  url() {
    return this.address;
  }

  on(event, listener) {
    (this.listeners[event] ??= []).push(listener);
  }

  #command(work) {
    if (this.closed) return Promise.reject(new Error('Target page, context or browser has been closed'));
    return this.owner.inWindow(this.handle, work);
  }

  #emit(events = []) {
    for (const e of events) {
      if (e.type === 'pageerror') this.listeners.pageerror.forEach((l) => l(new Error(e.message)));
      if (e.type === 'console') this.listeners.console.forEach((l) => l({ type: () => e.level, text: () => e.text }));
      if (e.type === 'request') this.listeners.request.forEach((l) => l({ url: () => e.url }));
    }
  }

  async goto(url) {
    await this.#command(async (command) => {
      await command('POST', '/url', { url });
      await command('POST', '/execute/sync', { script: INSTALL_HOOKS, args: [] });
    });
    this.address = url;
  }

  async reload() {
    await this.#command(async (command) => {
      await command('POST', '/refresh', {});
      await command('POST', '/execute/sync', { script: INSTALL_HOOKS, args: [] });
    });
  }

  /** Runs a synchronous script (`return …`) in the page. */
  script(script, args = []) {
    return this.#command((command) => command('POST', '/execute/sync', { script, args }));
  }

  /** As Playwright's: `fn` (a function or an expression) runs in the page with `arg`; its promise is awaited. */
  evaluate(fn, arg) {
    return this.#evaluation(startEvaluation, fn, arg);
  }

  /** As Playwright's: the value stays in the page; the handle stands for it in `dispatchEvent`'s init. */
  evaluateHandle(fn, arg) {
    return this.#evaluation(startHandle, fn, arg);
  }

  async #evaluation(start, fn, arg) {
    const source = typeof fn === 'function' ? fn.toString() : `() => (${fn})`;
    const id = `e${++evaluations}`;
    await this.script(start(source), [arg ?? null, id]);
    const deadline = Date.now() + EVALUATION_TIMEOUT_MS;
    for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
      if (Date.now() > deadline) throw new Error(`page.evaluate: no result in ${EVALUATION_TIMEOUT_MS} ms`);
      const { lost, slot, events } = await this.script(POLL_EVALUATION, [id]);
      this.#emit(events);
      if (lost) throw new Error('Execution context was destroyed, most likely because of a navigation');
      if (slot) {
        if (slot.error) throw Object.assign(new Error(slot.error.message), { name: slot.error.name ?? 'Error' });
        return revive(JSON.parse(slot.json));
      }
      await sleep(wait);
    }
  }

  /** Polls `fn(arg)` (its promise awaited) until it is truthy. */
  async waitForFunction(fn, arg, { timeout = 30000 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return { jsonValue: async () => value };
      if (Date.now() > deadline) throw new Error(`page.waitForFunction: Timeout ${timeout}ms exceeded`);
      await sleep(50);
    }
  }

  waitForTimeout(ms) {
    return sleep(ms);
  }

  waitForSelector(selector, options) {
    return this.locator(selector).waitFor(options);
  }

  locator(css) {
    return new Locator(this, [{ css }]);
  }

  getByRole(role, { name, exact } = {}) {
    return new Locator(this, [{ role, name: matcher(name), exact }]);
  }

  getByLabel(label, { exact } = {}) {
    return new Locator(this, [{ label: matcher(label), exact }]);
  }

  getByText(text, { exact } = {}) {
    return new Locator(this, [{ text: matcher(text), exact }]);
  }

  selectOption(selector, value) {
    return this.locator(selector).selectOption(value);
  }

  dispatchEvent(selector, type, init) {
    return this.locator(selector).dispatchEvent(type, init);
  }

  focus(selector) {
    return this.locator(selector).focus();
  }

  $$eval(selector, fn, arg) {
    return this.locator(selector).evaluateAll(fn, arg);
  }

  $eval(selector, fn, arg) {
    return this.locator(selector).evaluate(fn, arg);
  }

  isDisabled(selector) {
    return this.locator(selector).isDisabled();
  }

  inputValue(selector) {
    return this.locator(selector).inputValue();
  }

  textContent(selector) {
    return this.locator(selector).textContent();
  }

  click(selector) {
    return this.locator(selector).click();
  }

  fill(selector, value) {
    return this.locator(selector).fill(value);
  }

  /** The viewport as PNG (WebDriver classic has no full-page capture). */
  async screenshot({ path } = {}) {
    const png = Buffer.from(await this.#command((command) => command('GET', '/screenshot')), 'base64');
    if (path) await writeFile(path, png);
    return png;
  }

  async close() {
    if (this.closed) return;
    await this.#command(async (command) => {
      // New windows open from the current one: make another (the session's first, kept open) current.
      const [left] = await command('DELETE', '/window');
      await command('POST', '/window', { handle: left });
      this.owner.current = left;
    });
    this.closed = true;
    if (this.ownsContext) await this.owner.close();
  }
}
