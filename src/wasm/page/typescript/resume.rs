//! TypeScript types — resuming turns a closed tab cut off: `interruptedTurns` and `resumeTurn`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RESUME: &'static str = r#"
/** A turn a closed tab or a reload cut off, as `interruptedTurns` lists it. */
export interface InterruptedTurn {
  /** Pass it to `resumeTurn`. */
  turnId: string;
  conversationId: string;
  /** When the turn started (ms since the epoch). */
  startedAt: number;
  /** When its last step was stored. */
  updatedAt: number;
  /** Model calls it made before it stopped. */
  steps: number;
  /** Tool calls it completed and stored (never run again). */
  completedToolCalls: number;
  /** Calls that were running when it stopped: a resume answers them "Interrupted" and never runs them again. */
  interruptedCalls: { callId: string; toolName: string }[];
}

/** Options of `resumeTurn`. */
export interface ResumeOptions {
  /** Aborting it cancels the resumed turn's model calls and running tools. */
  signal?: AbortSignal;
}
"#;
