// Playwright's Locator over WebDriver classic: a chain of steps resolved in
// the page on every use (in-page.mjs's RESOLVE), actions waiting for their
// element as Playwright's do, clicks and key presses sent as WebDriver input.
import { RESOLVE } from './in-page.mjs';
import { keyValue } from './keyboard.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A name or text to match, sent to the page: a RegExp as `{ regex, flags }`. */
const matcher = (value) => (value instanceof RegExp ? { regex: value.source, flags: value.flags } : value);
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const VISIBLE = `(el) => el.isConnected && (el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0)`;

export { matcher };

export class Locator {
  constructor(page, steps) {
    this.page = page;
    this.steps = steps;
  }

  locator(css) {
    return new Locator(this.page, [...this.steps, { css }]);
  }

  getByRole(role, { name, exact } = {}) {
    return new Locator(this.page, [...this.steps, { role, name: matcher(name), exact }]);
  }

  getByLabel(label, { exact } = {}) {
    return new Locator(this.page, [...this.steps, { label: matcher(label), exact }]);
  }

  getByText(text, { exact } = {}) {
    return new Locator(this.page, [...this.steps, { text: matcher(text), exact }]);
  }

  nth(index) {
    return new Locator(this.page, [...this.steps, { nth: index }]);
  }

  first() {
    return this.nth(0);
  }

  last() {
    return this.nth(-1);
  }

  /** `map(elements, extra)` (a function's text) on what the chain resolves to now. */
  #run(map, extra = null) {
    return this.page.script(`return (${map})((${RESOLVE})(arguments[0]), arguments[1]);`, [this.steps, extra]);
  }

  count() {
    return this.#run('(els) => els.length');
  }

  allTextContents() {
    return this.#run('(els) => els.map((el) => el.textContent)');
  }

  /** Waits (up to `timeout`) for the first match to be in `state` (`visible`, `attached`, `hidden`, `detached`). */
  async waitFor({ state = 'visible', timeout = 30000 } = {}) {
    const deadline = Date.now() + timeout;
    const check = `(els, state) => {
      const el = els[0];
      const visible = !!el && (${VISIBLE})(el);
      return { visible: state === 'visible' ? visible : !visible, attached: !!el, hidden: !visible, detached: !el }[state];
    }`;
    while (!(await this.#run(check, state))) {
      if (Date.now() > deadline) throw new Error(`locator.waitFor: Timeout ${timeout}ms exceeded waiting for ${JSON.stringify(this.steps)} to be ${state}`);
      await sleep(50);
    }
  }

  /** `map(element, extra)` on the first match, once there is one. */
  async #onElement(map, extra) {
    await this.waitFor({ state: 'attached' });
    return this.#run(`(els, extra) => (${map})(els[0], extra)`, extra);
  }

  textContent() {
    return this.#onElement('(el) => el.textContent');
  }

  inputValue() {
    return this.#onElement('(el) => el.value');
  }

  getAttribute(name) {
    return this.#onElement('(el, name) => el.getAttribute(name)', name);
  }

  async isVisible() {
    return this.#run(`(els) => !!els[0] && (${VISIBLE})(els[0])`);
  }

  isDisabled() {
    return this.#onElement('(el) => !!el.disabled || el.getAttribute("aria-disabled") === "true"');
  }

  innerText() {
    return this.#onElement('(el) => el.innerText');
  }

  scrollIntoViewIfNeeded() {
    return this.#onElement('(el) => el.scrollIntoView({ block: "nearest" })');
  }

  focus() {
    return this.#onElement('(el) => el.focus()');
  }

  isChecked() {
    return this.#onElement('(el) => !!el.checked');
  }

  /** `fn(elements, arg)` in the page (synchronous: its value is returned as is). */
  evaluateAll(fn, arg) {
    return this.#run(`(els, arg) => (${fn})(els, arg)`, arg ?? null);
  }

  /** `fn(element, arg)` on the first match, in the page. */
  evaluate(fn, arg) {
    return this.#onElement(`(el, arg) => (${fn})(el, arg)`, arg ?? null);
  }

  /** Fires `type` at the first match: a DragEvent for drag types; handles in `init` stand for their page values. */
  dispatchEvent(type, init = {}) {
    return this.#onElement(
      `(el, { type, init }) => {
        for (const [key, value] of Object.entries(init))
          if (value && value.__wdHandle) init[key] = window.__wdHandles[value.__wdHandle];
        const Kind = type.startsWith('drag') || type === 'drop' ? DragEvent : Event;
        el.dispatchEvent(new Kind(type, { bubbles: true, cancelable: true, composed: true, ...init }));
      }`,
      { type, init: JSON.parse(JSON.stringify(init)) },
    );
  }

  async isHidden() {
    return !(await this.isVisible());
  }

  /** A WebDriver element reference to the first visible match. */
  async #reference() {
    await this.waitFor({ state: 'visible' });
    return (await this.#run('(els) => { els[0].scrollIntoView({ block: "center" }); return els[0]; }'))[ELEMENT];
  }

  /** A WebDriver click; an element WebKitWebDriver will not click (in a shadow root) gets `el.click()`. */
  async click() {
    const id = await this.#reference();
    try {
      await this.page.context().inWindow(this.page.handle, (command) => command('POST', `/element/${id}/click`, {}));
    } catch {
      await this.#onElement('(el) => el.click()');
    }
  }

  /** Sets the value as Playwright's fill does (focus, value, one input event). */
  async fill(value) {
    await this.waitFor({ state: 'visible' });
    await this.#onElement(
      `(el, value) => {
        el.focus();
        if ('value' in el) el.value = value; else el.textContent = value;
        el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: value }));
      }`,
      value,
    );
  }

  /** Sends the key (`Enter`, `Escape`, …) to the element as WebDriver key input. */
  async press(key) {
    const id = await this.#reference();
    await this.page.context().inWindow(this.page.handle, (command) =>
      command('POST', `/element/${id}/value`, { text: keyValue(key) }),
    );
  }

  /** Picks the option of `value` and fires `input` and `change`. */
  selectOption(value) {
    return this.#onElement(
      `(el, value) => {
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }`,
      value,
    );
  }

  /** Gives a file input the files `{ name, mimeType, buffer }` and fires `input` and `change`. */
  setInputFiles(files) {
    const list = (Array.isArray(files) ? files : [files]).map((f) => ({ name: f.name, type: f.mimeType, base64: f.buffer.toString('base64') }));
    return this.#onElement(
      `(el, files) => {
        const transfer = new DataTransfer();
        for (const f of files) {
          const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
          transfer.items.add(new File([bytes], f.name, { type: f.type }));
        }
        el.files = transfer.files;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }`,
      list,
    );
  }
}
