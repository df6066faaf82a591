// Playwright's page.keyboard over WebDriver actions: keys go to whatever has
// focus, and a key held down (`down('Shift')`) stays down across calls.

/** WebDriver's code points for the named keys Playwright takes. */
const KEYS = {
  Enter: '\uE007',
  Escape: '\uE00C',
  Tab: '\uE004',
  Backspace: '\uE003',
  Shift: '\uE008',
  Control: '\uE009',
  Alt: '\uE00A',
  Space: ' ',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
};

/** The WebDriver value of a Playwright key name (a single character stands for itself). */
export const keyValue = (key) => KEYS[key] ?? key;

export class Keyboard {
  constructor(page) {
    this.page = page;
  }

  #perform(actions) {
    return this.page.context().inWindow(this.page.handle, (command) =>
      command('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] }),
    );
  }

  down(key) {
    return this.#perform([{ type: 'keyDown', value: keyValue(key) }]);
  }

  up(key) {
    return this.#perform([{ type: 'keyUp', value: keyValue(key) }]);
  }

  press(key) {
    const value = keyValue(key);
    return this.#perform([{ type: 'keyDown', value }, { type: 'keyUp', value }]);
  }

  type(text) {
    return this.#perform([...text].flatMap((value) => [{ type: 'keyDown', value }, { type: 'keyUp', value }]));
  }
}
