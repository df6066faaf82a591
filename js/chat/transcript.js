// The transcript's items: user and assistant messages (the assistant's as safe Markdown,
// streamed), usage lines, errors with Retry, turns a closed page cut off with Continue.
import { h } from './dom.js';
import { MarkdownStream, parseBlocks, renderBlocks } from './markdown.js';

/** A user message (plain text, as typed). */
export function userMessage(text) {
  return h('li', { part: 'message message-user', class: 'message user', 'data-role': 'user' }, text);
}

/** A finished assistant message from history. */
export function assistantMessage(text, { interrupted = false } = {}) {
  const body = h('div', { class: 'body' });
  body.append(renderBlocks(parseBlocks(text)));
  const item = h('li', { part: 'message message-assistant', class: 'message assistant', 'data-role': 'assistant' }, body);
  if (interrupted) markStopped(item);
  return item;
}

/** An assistant message being streamed: `aria-busy` until `end()`. */
export class StreamingMessage {
  constructor() {
    this.body = h('div', { class: 'body' });
    this.item = h('li', { part: 'message message-assistant', class: 'message assistant', 'data-role': 'assistant', 'aria-busy': 'true' }, this.body);
    this.stream = new MarkdownStream(this.body);
  }
  get text() {
    return this.stream.text;
  }
  append(text) {
    this.stream.append(text);
  }
  /** Ends streaming; `finalText` (the stored answer) replaces what streamed if it differs. */
  end(finalText) {
    if (typeof finalText === 'string' && finalText !== this.stream.text) this.stream.reset(finalText);
    else this.stream.flush();
    this.item.setAttribute('aria-busy', 'false');
  }
  remove() {
    this.stream.cancel();
    this.item.remove();
  }
}

/** Marks an answer as cut short by Stop. */
export function markStopped(item) {
  item.classList.add('interrupted');
  item.append(h('div', { class: 'note' }, 'Stopped'));
}

/** A usage line under an answer. */
export function usageLine(text) {
  return h('li', { part: 'usage', class: 'usage', 'data-role': 'usage' }, text);
}

/** A failed turn: the friendly text, and Retry when it can help. */
export function errorItem(text, error, onRetry) {
  const item = h('li', { part: 'error', class: 'message error', role: 'note', 'data-role': 'error', 'data-error': error?.name ?? 'Error' },
    h('p', {}, text));
  if (onRetry) item.append(h('button', { type: 'button', class: 'retry', part: 'retry', onclick: onRetry }, 'Retry'));
  return item;
}

/** A turn a closed page (or a reload) cut off, and Continue (`resumeTurn`). */
export function interruptedItem(onContinue) {
  return h('li', { part: 'interrupted', class: 'interrupted-turn', role: 'note', 'data-role': 'interrupted' },
    h('p', {}, 'The answer was cut off when the page closed.'),
    h('button', { type: 'button', class: 'resume', part: 'resume', onclick: onContinue }, 'Continue'));
}
