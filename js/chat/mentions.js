// @-mention autocomplete on the composer's textarea: the APG editable combobox with list
// autocomplete (aria-autocomplete=list, aria-controls, aria-expanded, aria-activedescendant).
import { h } from './dom.js';

let serial = 0;

/** Wires the list to `input`; `items()` gives the host's `[{ type, id, label }]`. */
export class MentionList {
  #input;
  #items;
  #matches = [];
  #active = -1;
  #query = null;
  picked = [];
  constructor(input, items) {
    this.#input = input;
    this.#items = items;
    this.id = `mentions-${++serial}`;
    this.list = h('ul', { id: this.id, role: 'listbox', class: 'mentions', part: 'mentions', 'aria-label': 'Mentions', hidden: true });
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', this.id);
    input.setAttribute('aria-expanded', 'false');
  }
  get open() {
    return !this.list.hidden;
  }
  /** The `@query` being typed just before the caret, or null. */
  #typed() {
    const before = this.#input.value.slice(0, this.#input.selectionStart ?? this.#input.value.length);
    const match = /(^|\s)@([^\s@]*)$/u.exec(before);
    return match ? { query: match[2], start: before.length - match[2].length - 1 } : null;
  }
  /** Re-reads the input: opens, filters or closes the list. */
  update() {
    const typed = this.#typed();
    const all = this.#items() ?? [];
    if (!typed || all.length === 0) return this.close();
    const q = typed.query.toLocaleLowerCase();
    this.#query = typed;
    this.#matches = all.filter((m) => String(m.label).toLocaleLowerCase().includes(q)).slice(0, 20);
    if (this.#matches.length === 0) return this.close();
    this.#active = 0;
    this.#render();
  }
  #render() {
    this.list.replaceChildren(
      ...this.#matches.map((m, i) =>
        h('li', {
          id: `${this.id}-${i}`,
          role: 'option',
          'aria-selected': String(i === this.#active),
          onmousedown: (e) => {
            e.preventDefault();
            this.#pick(i);
          },
        }, String(m.label)),
      ),
    );
    this.list.hidden = false;
    this.#input.setAttribute('aria-expanded', 'true');
    this.#input.setAttribute('aria-activedescendant', `${this.id}-${this.#active}`);
  }
  close() {
    this.list.hidden = true;
    this.#matches = [];
    this.#input.setAttribute('aria-expanded', 'false');
    this.#input.removeAttribute('aria-activedescendant');
  }
  /** Handles ↑/↓/Enter/Tab/Escape while the list is open; whether it did. */
  keydown(event) {
    if (!this.open) return false;
    const n = this.#matches.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      this.#active = (this.#active + (event.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.#render();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      this.#pick(this.#active);
    } else if (event.key === 'Escape') {
      this.close();
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }
  #pick(index) {
    const mention = this.#matches[index];
    const typed = this.#query;
    if (!mention || !typed) return this.close();
    const value = this.#input.value;
    const end = typed.start + 1 + typed.query.length;
    const inserted = `@${mention.label} `;
    this.#input.value = value.slice(0, typed.start) + inserted + value.slice(end);
    const caret = typed.start + inserted.length;
    this.#input.setSelectionRange(caret, caret);
    if (!this.picked.some((m) => m.type === mention.type && m.id === mention.id)) this.picked.push(mention);
    this.close();
  }
  /** The picked mentions still in `text`, as `send` takes them; forgets them all. */
  take(text) {
    const used = this.picked.filter((m) => text.includes(`@${m.label}`)).map(({ type, id }) => ({ type, id }));
    this.picked = [];
    return used;
  }
}
