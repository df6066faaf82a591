//! TypeScript types — portability: `exportConversation` and `importConversation`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const PORTABILITY: &'static str = r#"
/** `exportConversation`'s options: `lectern` (the default) keeps everything; `openai` is the chat-completions `messages` array. */
export interface ExportOptions {
  format?: 'lectern' | 'openai';
}

/** A tool a person approved for the rest of a conversation (`approveAlways`). */
export interface Grant {
  conversationId: string;
  toolName: string;
  grantedAt: number;
  /** The paused turn whose resolve gave it. */
  turnId: string;
  callId: string;
}

/** A turn paused for approval, as stored: resolvable with `resolveApprovals` after an import. */
export interface PendingTurn {
  turnId: string;
  conversationId: string;
  /** The calls waiting for a decision. */
  calls: PendingCall[];
  createdAt: number;
  expiresAt: number;
  status: 'awaiting' | 'resolving';
  /** Bumped at every write of the turn. */
  revision: number;
  /** The model response the turn paused in and the turn's state (Lectern's own; keep it as it is). */
  step: Record<string, unknown>;
}

/** A conversation in Lectern's format (version 1): every record in the shape Lectern returns it. */
export interface LecternBundle {
  format: 'lectern';
  version: 1;
  conversation: Conversation;
  /** In order, reasoning included. */
  messages: Message[];
  toolCalls: ToolCallRecord[];
  /** The open paused turn, if any. */
  pendingTurns: PendingTurn[];
  usage: UsageTotals;
  grants: Grant[];
}

/** What `exportConversation` resolves with: a `LecternBundle`, or (`format: 'openai'`) the chat-completions `messages`. */
export type ConversationExport = LecternBundle | ChatMessage[];

/** A text part of an OpenAI content array (the only part `importConversation` takes). */
export interface ChatTextPart {
  type: 'text';
  text: string;
}

/** A chat-completions message as `importConversation` takes it: content may be an array of text parts (joined by line breaks). */
export type ImportedChatMessage =
  | { role: 'system' | 'developer' | 'user'; content: string | ChatTextPart[] }
  | { role: 'assistant'; content?: string | ChatTextPart[] | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] };

/** OpenAI messages for `importConversation`: the array, or `{ format: 'openai', messages, title? }`. */
export type ImportInput =
  | ImportedChatMessage[]
  | { format: 'openai'; messages: ImportedChatMessage[]; title?: string };
"#;
