//! TypeScript types — books, their ingestion and search.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BOOKS: &'static str = r#"
/** Which embedder turns book passages and queries into vectors. Without one (`kind: 'none'`, the default), books get no vectors and are searched lexically (BM25). */
export type EmbedderConfig =
  | { kind: 'none' }
  | { kind: 'hashed'; dimensions?: number }
  | {
      kind: 'openai';
      baseUrl: string;
      model: string;
      apiKey?: string;
      headers?: Record<string, string>;
      batchSize?: number;
      dimensions?: number;
      maxRetries?: number;
    }
  | {
      kind: 'custom';
      /** Recorded with each book: a book can only be searched with the model that embedded it. */
      model: string;
      embed: (texts: string[]) => Promise<Float32Array[] | number[][]>;
      batchSize?: number;
    }
  | {
      /** all-MiniLM-L6-v2 (384 dimensions) computed in Lectern's ingestion worker, offline once its files are cached. */
      kind: 'minilm';
      /** URL of the model's `model.safetensors` (f32, 90.9 MB). */
      modelUrl: string;
      /** URL of its `vocab.txt` (232 KB). */
      vocabUrl: string;
      /** Keep both files in the Cache API (`lectern-models-v1`) and read them from there next time (default true). */
      cache?: boolean;
    };

/** Book cutting and retrieval. */
export interface RetrievalSettings {
  /** `toolUse` (default): the model calls `search_book`. `alwaysRetrieve`: `search_book` is not offered (the other tools are; `allowedTools: []` offers none); the user's message is searched (BM25 on its content words, the first passage naming each name it asks about) and the passages put into the context. Either way the reader's pages (`readerPages`) are in the context. */
  strategy?: 'toolUse' | 'alwaysRetrieve';
  /** Chunk size in characters (default 800). */
  chunkChars?: number;
  /** Overlap between chunks in characters (default 150). */
  overlapChars?: number;
  /** Size of synthetic pages when the text has no page markers (default 2000). */
  pageChars?: number;
  /** Books of at least this many chunks get an HNSW index (built in the worker), and searches over at least this many eligible chunks use it (default 8192, where the index starts to beat exact search in Chromium; at least 256). */
  indexMinChunks?: number;
  /**
   * The most tokens of passages one retrieval adds to the prompt — the book passages of the system
   * message (the reader's pages, what `alwaysRetrieve` found), a `search_book` result — by Lectern's
   * token estimate (docs/api.md): the best passages that fit, always at least one. Default 1,500
   * (it held the evidence of 84% of the reader questions measured); `null`: no limit. Small local
   * models read prompts slowly: ~300 keeps the first token within seconds. At least 1 (else a `ConfigError`).
   */
  maxContextTokens?: number | null;
  /** The reader's page and the ones before it, this many in all, always in a book conversation's system message (default 2; 0 to 4). */
  readerPages?: number;
  /** Passages `alwaysRetrieve` finds for the user's message, each cut to the 400 characters around the question's words (default 10; 1 to 20); besides them, the first passage naming each of up to two names the question asks about. All within `maxContextTokens`. */
  passages?: number;
  /** A book question whose model fails before writing (network off, endpoint down, a local model not loaded) is answered with quotes from the book, marked `quoted: { reason: 'fallback' }`, instead of an error (default true). */
  quoteFallback?: boolean;
  /** The system message numbers its passages (`[1] [Pages 30-31]`) and asks for the passage's number after each sentence, so each sentence is checked against what it cites (default true). Every sentence is checked either way (against all the passages when it cites none); turn it off for a small model that does not cite, which then reads fewer tokens. */
  citations?: boolean;
}

/** A stored book. */
export interface Book {
  id: string;
  title: string;
  author?: string;
  pageCount: number;
  chunkCount: number;
  /** The reader's page: `search_book` never returns text past it. */
  currentPage: number;
  /** The embedding model its vectors came from; `'none'` for a book ingested without an embedder (no vectors: searched lexically). */
  embedder: string;
  /** The vectors' dimension; 0 without vectors. */
  dimensions: number;
  chapters?: string[];
  createdAt: number;
}

/** One page of a book, as `page(bookId, number)` returns it. */
export interface BookPage {
  /** 1-based page number. */
  number: number;
  /** The page's text, as the reader shows it. */
  text: string;
  /** Its chapter, if the book has chapters. */
  chapter?: string;
}

/**
 * Input of `addBook`: exactly one of `text` (pages from form feeds, `[[page N]]` markers, or about
 * `pageChars`), `pages` or `epub`. `id` (1 to 64 of A-Z a-z 0-9 - _) stores it under the host's id, such as a hash of
 * the file: the same book added on two devices is then one book to sync (its conversations and
 * page follow); an id already in the library is a `StorageError`. Without it, a new id.
 */
export type NewBook = { title: string; author?: string; id?: string } & (
  | { text: string; pages?: never; epub?: never }
  | { pages: string[]; text?: never; epub?: never }
  | { epub: Uint8Array; text?: never; pages?: never }
);

/** Options of `addBook`. */
export interface AddBookOptions {
  /** Every phase, including those after `addBook` resolved (`loading`, `embedding`, `indexing`). */
  onProgress?: (progress: IngestProgress) => void;
  /** Aborting it before `addBook` resolves stops ingestion and nothing of the book is stored; later, it stops the vectors and index behind it (the book stays, searched lexically; the next open takes them up again). */
  signal?: AbortSignal;
}

/**
 * Where ingestion is. `chunking` comes before `addBook` resolves: the book is then stored and
 * searched lexically (BM25). With an embedder, `loading` (MiniLM's model files, in bytes; `total`
 * 0 while unknown) and `embedding` (chunks) come after it, then `indexing` for a book of
 * `retrieval.indexMinChunks` passages or more; until `embedding` ends (`done === total`), the book's
 * `dimensions` is 0 and every search of it is lexical.
 */
export interface IngestProgress {
  bookId: string;
  phase: 'loading' | 'chunking' | 'embedding' | 'indexing';
  done: number;
  total: number;
}

/** `ingestProgress`, sent to `onEvent` and subscribers (it belongs to no conversation), also for the work an instance takes up when its books module loads (its first book call or book conversation). */
export interface IngestProgressEvent extends IngestProgress {
  type: 'ingestProgress';
}

/** `ingestFailed`: a stored book's vectors or index could not be computed (`name` and `message` of the error). The book stays, searched lexically; the next open tries again. */
export interface IngestFailedEvent {
  type: 'ingestFailed';
  bookId: string;
  name: string;
  message: string;
}

/**
 * How `search` ranks passages. `lexical`: BM25 over the passages' words (every book has its
 * index). `semantic`: the embedder's vectors. `hybrid`: both lists fused by reciprocal rank.
 * Default: `hybrid` with a semantic embedder (`minilm`, `openai`, `custom`), `semantic` with `hashed`,
 * `lexical` without an embedder; `semantic` and `hybrid` without one are a `ConfigError`.
 */
export type SearchMode = 'lexical' | 'semantic' | 'hybrid';

/** Options of `search`. */
export interface SearchOptions {
  /** Only these books (default: all). */
  bookIds?: string[];
  /** Results wanted (default 5, at most 100). */
  k?: number;
  /** No result ends after this page; there are exactly `min(k, eligible passages)` results (`lexical`: eligible passages holding a query word). */
  maxPage?: number;
  /** How to rank (default: see `SearchMode`). */
  mode?: SearchMode;
}

/** A passage found by `search` or `search_book`. */
export interface SearchResult {
  bookId: string;
  ordinal: number;
  text: string;
  startPage: number;
  endPage: number;
  chapter?: string;
  /** Higher is better. `lexical`: the BM25 score (> 0); `semantic`: cosine similarity to the query; `hybrid`: the weighted reciprocal-rank-fusion score, 1 / (5 + rank) from the vector list plus 0.3 / (5 + rank) from the BM25 list, ranks from 1 (at most 1.3/6). */
  score: number;
}
"#;
