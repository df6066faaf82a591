// Types of lectern/chat: the <lectern-chat> element, its properties, methods and events.
import type { Lectern, LecternErrorName, Mention, PendingCall, Quoted, SendOptions, SendResult, Source, SourceCheck, Usage } from '../lectern.js';

/** An item of the `@`-mention list the host provides. */
export interface ChatMention extends Mention {
  /** What the list shows and the input gets after `@`. */
  label: string;
}

/** What the settings panel edits; `lectern-settings-change` carries it (with the key). */
export interface ChatSettings {
  kind: 'openai' | 'anthropic';
  baseUrl: string;
  model: string;
  stream: boolean;
}

/** A source of an answer the user asked to go to (`lectern-source`): turn the reader to `startPage`; from a sentence's citation, `sentence` is the sentence to highlight. */
export type ChatSourceDetail = Pick<Source, 'bookId' | 'startPage' | 'endPage' | 'via' | 'text'> & { sentence?: string };

export interface LecternChatEventMap extends HTMLElementEventMap {
  /** Before a message is sent; `preventDefault()` cancels it, and `detail.options` takes send options for this turn (its *Retry* too). */
  'lectern-send': CustomEvent<{ conversationId: string; text: string; options: Omit<SendOptions, 'signal' | 'mentions'> }>;
  /** A turn answered. */
  'lectern-finish': CustomEvent<{ conversationId: string; turnId: string; text: string; usage: Usage; sources: Source[]; sourceCheck?: SourceCheck; quoted?: Quoted }>;
  /** A turn failed (the chat shows a friendly message with Retry). */
  'lectern-error': CustomEvent<{ conversationId: string | null; error: { name: LecternErrorName | string; message: string } }>;
  /** A turn paused: these calls wait for the user's decision. */
  'lectern-approval': CustomEvent<{ conversationId: string; turnId: string; calls: PendingCall[] }>;
  /** The user chose "Go to" on one of an answer's sources: turn the reader to `detail.startPage`. */
  'lectern-source': CustomEvent<ChatSourceDetail>;
  /** The user saved settings: reopen Lectern with them and set `chat.lectern`. */
  'lectern-settings-change': CustomEvent<ChatSettings & { apiKey: string }>;
}

/** `<lectern-chat>`: a chat over a `Lectern` instance. */
export declare class LecternChat extends HTMLElement {
  /** The instance the chat talks to (null until a lazily loaded one has started). */
  get lectern(): Lectern | null;
  /**
   * The instance the chat talks to; setting it again (after new settings)
   * reloads the conversation. Or a function that opens one
   * (`() => Lectern.open(…)`): the chat renders at once and loads the engine
   * when first used (the input focused, a message sent).
   */
  set lectern(value: Lectern | (() => Lectern | Promise<Lectern>) | null);
  /** The conversation shown (attribute `conversation-id`); without one, the chat creates one. */
  conversationId: string | null;
  /** The items offered after `@`. */
  mentions: ChatMention[];
  /** What the settings panel shows (the API key is never read from here). */
  settings: Partial<ChatSettings>;
  /** The models the settings panel offers to pick from; empty (the default): the model is typed as free text. The model saved in the panel is asked for each later turn (`send`'s `model`) without reopening the engine, until `lectern` or `settings` is set again. */
  models: (string | { id: string; label?: string })[];
  /** Resolves once the current conversation's history is shown. */
  readonly ready: Promise<void>;
  /**
   * Shows the conversation afresh as stored (another device's messages, say), unless a turn of
   * this page's is on screen; resolves once it is shown.
   */
  refresh(): Promise<void>;
  /** Focuses the message input. */
  focus(options?: FocusOptions): void;
  /** Starts a new conversation (on the same book, if any); the old one stays stored. */
  clear(): Promise<void>;
  /** Sends `text` as the user; resolves with whether a turn ran (false: empty, busy or cancelled). */
  send(text: string): Promise<boolean>;
  /** Aborts the running turn; what streamed stays. */
  stop(): void;
  addEventListener<K extends keyof LecternChatEventMap>(
    type: K,
    listener: (this: LecternChat, event: LecternChatEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof LecternChatEventMap>(
    type: K,
    listener: (this: LecternChat, event: LecternChatEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** The URL an href may take (http, https, mailto), or null. */
export declare function safeHref(raw: string): string | null;

declare global {
  interface HTMLElementTagNameMap {
    'lectern-chat': LecternChat;
  }
}

/** Unused by the element; re-exported for hosts that type their own outcome handling. */
export type { SendResult };
