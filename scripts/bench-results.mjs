// Turns the figure lines of `npm run bench` (`FIGURE <id> <env> <value>`,
// printed by the Rust benchmarks and the JS measurements) into
// bench/RESULTS.md: every figure beside its target, native and Chromium
// columns, and the date; then puts the same tables into docs/figures.md
// between `<!-- bench:begin -->` and `<!-- bench:end -->`, and the headline
// figures (`HEADLINE`, rows of the same tables) into the README between
// `<!-- bench-headline:begin -->` and `<!-- bench-headline:end -->`.
//
//   node scripts/bench-results.mjs <log>... [--carry bench/RESULTS.md] [--out bench/RESULTS.md] [--docs docs/figures.md] [--readme README.md]
//   node scripts/bench-results.mjs --refresh [--out bench/RESULTS.md] [--docs docs/figures.md] [--readme README.md]
//
// With several logs, a later log's figure replaces an earlier one's. `--refresh` measures nothing:
// it writes the docs' and the README's blocks again from bench/RESULTS.md as it stands.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import os from 'node:os';

/** A target: its words, and whether a figure meets it (given all figures). */
const atMost = (limit, unit) => ({ text: `≤ ${limit} ${unit}`, met: (v) => v <= limit, gap: (v) => `${fmt(v - limit)} ${unit} over` });
const atLeast = (limit, unit = '') => ({ text: `≥ ${limit}${unit && ' ' + unit}`, met: (v) => v >= limit, gap: (v) => `${fmt(limit - v)}${unit && ' ' + unit} short` });
const fasterThan = (other, times, label) => ({
  text: `≥ ${times}× faster than ${label}`,
  met: (v, env, all) => all[other]?.[env] !== undefined && all[other][env] / v >= times,
  gap: (v, env, all) => (all[other]?.[env] === undefined ? `${other} not measured` : `${fmt(all[other][env] / v)}× only`),
});

/** At least as high as the highest of other figures (in the same environment). */
const atLeastFigures = (others, label) => ({
  text: `≥ ${label}`,
  met: (v, env, all) => others.every((o) => all[o]?.[env] !== undefined) && others.every((o) => v >= all[o][env]),
  gap: (v, env, all) => {
    const missing = others.filter((o) => all[o]?.[env] === undefined);
    if (missing.length) return `${missing.join(', ')} not measured`;
    return `${fmt(Math.max(...others.map((o) => all[o][env])) - v)} short`;
  },
});

/**
 * Figures derived from two others of the same run: `over`'s Chromium figure divided by `under`'s
 * native one (Lectern's decoder beside llama.cpp natively).
 */
const RATIOS = [
  ['local_decoder_prompt_tps', 'native_llama_prompt_tps', 'prompt read, 62-token prompt, one thread', 0.5],
  ['local_decoder_long_prompt_tps', 'native_llama_long_prompt_tps', 'prompt read, 378-token prompt, one thread', 0.5],
  ['local_decoder_gen_tps', 'native_llama_gen_tps', 'generation, one thread', 0.65],
  ['local_decoder_prompt_tps_2t', 'native_llama_prompt_tps_2t', 'prompt read, 62-token prompt, two threads', 0.5],
  ['local_decoder_long_prompt_tps_2t', 'native_llama_long_prompt_tps_2t', 'prompt read, 378-token prompt, two threads', 0.5],
  ['local_decoder_gen_tps_2t', 'native_llama_gen_tps_2t', 'generation, two threads', 0.65],
  ['local_decoder_gemma3_prompt_tps', 'native_llama_gemma3_prompt_tps', 'Gemma 3 270M, prompt read, one thread', 0.5],
  ['local_decoder_gemma3_gen_tps', 'native_llama_gemma3_gen_tps', 'Gemma 3 270M, generation, one thread', 0.65],
  ['local_decoder_gemma3_prompt_tps_2t', 'native_llama_gemma3_prompt_tps_2t', 'Gemma 3 270M, prompt read, two threads', 0.5],
  ['local_decoder_gemma3_gen_tps_2t', 'native_llama_gemma3_gen_tps_2t', 'Gemma 3 270M, generation, two threads', 0.65],
].map(([over, under, what, target]) => ({
  id: `ratio_${over}`,
  over,
  under,
  what: `Lectern's decoder in Chromium ÷ llama.cpp natively, the same run: ${what}`,
  target,
}));

/** The decoder's stages (`src/generation/profile.rs`), as the bench names them. */
const STAGES = [
  ['normsAndQuantising', 'norms and quantising each input'],
  ['attentionProducts', 'query, key, value and output products'],
  ['positionsAndCache', 'rotary positions and the key/value cache'],
  ['attention', 'attention'],
  ['feedForwardProducts', 'feed-forward products (gate, up, down)'],
  ['activation', 'SwiGLU'],
  ['logits', 'the output layer'],
];

/**
 * `all` with the RATIOS of figures measured in the same run: from this run's when both were
 * measured now, kept from before when neither was, and left out when only one was.
 */
export function withRatios(all, measured) {
  const out = { ...all };
  for (const { id, over, under } of RATIOS) {
    const fresh = [over, under].filter((f) => measured[f]).length;
    if (fresh === 1) delete out[id];
    if (fresh === 2) {
      const [a, b] = [measured[over].chromium, measured[under].native];
      if (a !== undefined && b !== undefined && b > 0) out[id] = { chromium: Number((a / b).toFixed(3)) };
      else delete out[id];
    }
  }
  return out;
}

/** Every figure the benchmarks print, by section, in order. */
const ROWS = [
  ['Providers', 'sse_parse', 'SSE parse, 10 MB OpenAI stream in 1,460 B chunks', 'MB/s'],
  ['Providers', 'sse_decode', 'SSE parse + JSON decode to parts, same stream', 'MB/s'],
  ['Agent loop', 'agent_step', 'overhead per step, scripted model answering at once (tool call + answer)', 'ms'],
  ['Agent loop', 'store_append', "append one step's message (memory store / IndexedDB)", 'ms'],
  ['Agent loop', 'store_load_1000', 'load a 1,000-message conversation', 'ms'],
  ['Agent loop', 'context_50', 'context build, 50 stored messages (`fullHistory` 50)', 'ms'],
  ['Agent loop', 'context_5000', 'context build, 5,000 stored messages (`fullHistory` 50)', 'ms'],
  ['Exact search', 'exact_p50_10000', 'exact top-10, f32, p50, 10,000 × 384', 'ms'],
  ['Exact search', 'exact_p99_10000', 'exact top-10, f32, p99, 10,000 × 384', 'ms'],
  ['Exact search', 'int8_p50_10000', 'int8 scan + exact re-rank, top-10, p50, 10,000', 'ms'],
  ['Exact search', 'int8_recall_10000', 'int8 + re-rank recall@10 against exact, 10,000', ''],
  ['Exact search', 'exact_p50_20000', 'exact top-10, f32, p50, 20,000 × 384', 'ms'],
  ['Exact search', 'exact_p99_20000', 'exact top-10, f32, p99, 20,000 × 384', 'ms'],
  ['Exact search', 'int8_p50_20000', 'int8 scan + exact re-rank, top-10, p50, 20,000', 'ms'],
  ['Exact search', 'int8_recall_20000', 'int8 + re-rank recall@10 against exact, 20,000', ''],
  ['Exact search', 'exact_p50_53901', 'exact top-10, f32, p50, 53,901 × 384', 'ms', atMost(4.5, 'ms')],
  ['Exact search', 'exact_p99_53901', 'exact top-10, f32, p99, 53,901 × 384', 'ms'],
  ['Exact search', 'int8_p50_53901', 'int8 scan + exact re-rank, top-10, p50, 53,901', 'ms', fasterThan('exact_p50_53901', 3, 'the f32 scan')],
  ['Exact search', 'int8_recall_53901', 'int8 + re-rank recall@10 against exact, 53,901', ''],
  // Where the index starts to beat exact search: the same four rows at each size.
  ...[512, 1024, 2048, 4096, 8192].flatMap((n) => {
    const size = n.toLocaleString('en-US');
    return [
      ['Index crossover', `exact_p50_${n}`, `exact top-10, f32, p50, ${size}`, 'ms'],
      ['Index crossover', `ann_p50_${n}`, `HNSW query p50, k = 10, ${size}`, 'ms'],
      ['Index crossover', `ann_speedup_${n}`, `HNSW query speed-up over the f32 exact scan, ${size}`, '×'],
      ['Index crossover', `ann_recall_${n}`, `HNSW recall@10 against exact, ${size}`, ''],
    ];
  }),
  ['ANN index', 'ann_build_10000', 'HNSW build, 10,000', 's'],
  ['ANN index', 'ann_p50_10000', 'HNSW query p50, k = 10, 10,000', 'ms'],
  ['ANN index', 'ann_p99_10000', 'HNSW query p99, k = 10, 10,000', 'ms'],
  ['ANN index', 'ann_speedup_10000', 'HNSW query speed-up over the f32 exact scan, 10,000', '×'],
  ['ANN index', 'ann_recall_10000', 'HNSW recall@10 against exact, 10,000', '', atLeast(0.95)],
  ['ANN index', 'ann_memory_10000', 'resident vectors + int8 copy + index ÷ f32 vectors, 10,000', '×', atMost(1.3, '×')],
  ['ANN index', 'ann_build_20000', 'HNSW build, 20,000', 's'],
  ['ANN index', 'ann_p50_20000', 'HNSW query p50, k = 10, 20,000', 'ms'],
  ['ANN index', 'ann_p99_20000', 'HNSW query p99, k = 10, 20,000', 'ms'],
  ['ANN index', 'ann_speedup_20000', 'HNSW query speed-up over the f32 exact scan, 20,000', '×'],
  ['ANN index', 'ann_recall_20000', 'HNSW recall@10 against exact, 20,000 (the hardest queries)', '', atLeast(0.95)],
  ['ANN index', 'ann_memory_20000', 'resident vectors + int8 copy + index ÷ f32 vectors, 20,000', '×', atMost(1.3, '×')],
  ['ANN index', 'ann_build_53901', 'HNSW build, 53,901 (Chromium: in the worker, `addBook` stored → index in use)', 's', atMost(30, 's')],
  ['ANN index', 'ann_p50_53901', 'HNSW query p50, k = 10, 53,901', 'ms', atMost(0.5, 'ms')],
  ['ANN index', 'ann_p99_53901', 'HNSW query p99, k = 10, 53,901', 'ms'],
  ['ANN index', 'ann_speedup_53901', 'HNSW query speed-up over the f32 exact scan in the same run, 53,901', '×', atLeast(10, '×')],
  ['ANN index', 'ann_recall_53901', 'HNSW recall@10 against exact, 53,901', '', atLeast(0.95)],
  ['ANN index', 'ann_memory_53901', 'resident vectors + int8 copy + index ÷ f32 vectors, 53,901', '×', atMost(1.3, '×')],
  ['ANN index', 'search_exact_53901', '`search()` end to end (embed + search + results), 53,901, exact (index still building)', 'ms'],
  ['ANN index', 'search_index_53901', '`search()` end to end, 53,901, through the index', 'ms'],
  ['ANN index', 'cold_start_53901', 'cold start: open → read 53,901 vectors (+ index) → first answer', 'ms', atMost(1000, 'ms')],
  ['MiniLM', 'minilm_cosine_min_2000', 'all-MiniLM-L6-v2 in Rust, lowest cosine to the reference on the first 2,000 sentences', 'cosine', atLeast(0.999)],
  ['MiniLM', 'minilm_tokens_per_s', 'all-MiniLM-L6-v2 in Rust, tokens/s on 800-character chunks, one thread', 'tokens/s', atLeast(400, 'tokens/s')],
  ['MiniLM', 'minilm_thursday_worker_s', 'the Thursday fixture (320 KB) added with MiniLM in the worker: model from the Cache API + every chunk embedded', 's', atMost(240, 's')],
  ['MiniLM', 'minilm_model_load_fetched_ms', 'MiniLM model load in the worker, files fetched from the page\'s origin (90.9 MB)', 'ms'],
  ['MiniLM', 'minilm_model_load_cached_ms', 'MiniLM model load in the worker, files read from the Cache API', 'ms'],
  ['MiniLM', 'minilm_search_p50_ms', '`search()` end to end with MiniLM, the query embedded in the worker, p50', 'ms'],
  // Chapter-in-top-5 hit rates on tests/fixtures/thursday-questions.json (issue 13's targets).
  ...['named', 'paraphrased'].flatMap((half) => [
    ['Retrieval quality', `top5_hashed_${half}`, `hashed vectors (the old default), ${half} questions, chapter in top 5`, ''],
    ['Retrieval quality', `top5_bm25_${half}`, `BM25 (the new default), ${half} questions`, '', atLeastFigures([`top5_hashed_${half}`], 'hashed')],
    ['Retrieval quality', `top5_minilm_${half}`, `MiniLM, ${half} questions`, ''],
    ['Retrieval quality', `top5_hybrid_${half}`, `hybrid (BM25 × 0.3 + MiniLM, RRF k = 5), ${half} questions`, '', atLeastFigures([`top5_bm25_${half}`, `top5_minilm_${half}`], 'BM25 and MiniLM')],
  ]),
  // Evidence recall on tests/fixtures/thursday-reader-questions.json (benches/reader_evidence.rs, issue 31).
  ['Evidence recall', 'reader_recall_default', 'reader questions whose context (the default plan) holds every reference fact', '', atLeast(0.8)],
  ['Evidence recall', 'reader_tokens_default', 'that context, mean estimated tokens', 'tokens', atMost(1500, 'tokens')],
  ['Evidence recall', 'reader_recall_old', 'the same, the old `alwaysRetrieve` (five whole BM25 passages for the question as asked)', ''],
  ['Evidence recall', 'reader_tokens_old', 'its context, mean estimated tokens', 'tokens'],
  ['Evidence recall', 'reader_recall_hybrid', 'the default plan ranked hybrid (BM25 × 0.3 + MiniLM) instead of BM25', ''],
  // The answers themselves (benches/reader_answers.mjs): the site's models on the same questions.
  ...[
    ['quotes', "quotes from the book (`{ kind: 'quotes' }`), the site's default, the 32 tuning questions"],
    ['quotes_heldout', 'quotes from the book, the 16 held-out questions'],
    ['demo', 'the Demo model (no AI), `search_book` by words'],
    ['demo_heldout', 'the Demo model (no AI), `search_book` by words, the 16 held-out questions'],
    ['demo_minilm', 'the Demo model (no AI), `search_book` hybrid with MiniLM (the site)'],
    ['smollm2', 'SmolLM2-135M-Instruct through wllama, as the site configures it'],
    ['smollm2_one', 'SmolLM2-135M-Instruct with one passage (≤ 150 tokens)'],
    ['smollm2_own', 'SmolLM2-135M-Instruct through Lectern\'s own decoder, as the site configures it (the system prompt read ahead)'],
    ['smollm2_own_cold', 'SmolLM2-135M-Instruct through Lectern\'s own decoder, the site\'s plan, nothing read ahead'],
    ['smollm2_own_300', 'SmolLM2-135M-Instruct through Lectern\'s own decoder, three passages within 300 tokens, read ahead'],
    ['smollm2_own_2t', 'SmolLM2-135M-Instruct through Lectern\'s own decoder on two threads, three passages within 200 tokens, read ahead'],
    ['smollm2_own_300_2t', 'SmolLM2-135M-Instruct through Lectern\'s own decoder on two threads, as the site configures it served cross-origin isolated (three passages within 300 tokens, read ahead)'],
    ['smollm2_own_more', 'SmolLM2-135M-Instruct through Lectern\'s own decoder, five passages (≤ 600 tokens)'],
    ['gemma3', 'the base Gemma 3 270M through wllama, completion form, the site\'s plan'],
  ].flatMap(([id, who]) => [
    // Issue 46's target for the quoted answer: 60% of the reference facts, on both question sets.
    ['Reader answers', `answers_${id}_facts`, `${who}: reference facts found`, '', ...(id.startsWith('quotes') ? [atLeast(0.6)] : [])],
    ['Reader answers', `answers_${id}_whole`, `${who}: answers holding every reference fact`, ''],
    ['Reader answers', `answers_${id}_marked`, `${who}: answers marked "not found in the book"`, ''],
    ['Reader answers', `answers_${id}_first_s`, `${who}: first words, median`, 's'],
    ['Reader answers', `answers_${id}_repeating`, `${who}: answers that write a sentence twice`, '', ...(['smollm2_own', 'smollm2_own_2t', 'smollm2_own_300_2t'].includes(id) ? [atMost(0, '')] : [])],
  ]),
  // Issue 32's figure: the site's default, the question on page 31, a freshly loaded model.
  ['Reader answers', 'answers_site_page31_first_s', 'the reading site\'s default (SmolLM2 through Lectern\'s own decoder, the system prompt read ahead): first words for the question on page 31', 's', atMost(5, 's')],
  ['Reader answers', 'answers_site_page31_prompt_tokens', 'its prompt, tokens', ''],
  ['Reader answers', 'answers_site_page31_default_first_s_2t', 'SmolLM2 through Lectern\'s own decoder on two threads with the default context (the reader\'s pages and passages within its ~1,500-token plan), read ahead: first words for the question on page 31', 's'],
  ['Reader answers', 'answers_site_page31_default_prompt_tokens_2t', 'its prompt, tokens', ''],
  ['Reader answers', 'answers_site_page31_first_s_2t', 'the site\'s default served cross-origin isolated (two threads, three passages within 300 tokens): first words for the question on page 31', 's', atMost(5, 's')],
  ['Reader answers', 'answers_site_page31_prompt_tokens_2t', 'its prompt, tokens', ''],
  // A local model (benches/local_model.mjs): wllama 3.8.1 running SmolLM2-135M-Instruct Q4_1 in Chromium.
  ['Local model', 'local_load_t1', 'wllama: load the 98 MB GGUF (from this origin), 1 thread', 's'],
  ['Local model', 'local_load_t2', 'wllama: load the 98 MB GGUF, 2 threads (COOP/COEP)', 's'],
  ...[
    ['local_ttft_66_t1', '66-token prompt, 1 thread, n_batch 512'],
    ['local_ttft_66_t2', '66-token prompt, 2 threads, n_batch 512'],
    ['local_ttft_66_t1_b32', '66-token prompt, 1 thread, n_batch 32, n_ctx 512'],
    ['local_ttft_66_t1_extra', '66-token prompt, 1 thread, the other GGUF of `LECTERN_SMOLLM2_EXTRA`'],
    ['local_ttft_1000_t1', '~1,000-token prompt (five passages of 800 characters), 1 thread'],
  ].flatMap(([id, what]) => [
    ['Local model', id, `first token, ${what}`, 's'],
    ['Local model', `${id}_prompt_tps`, `prompt read, ${what}`, 'tokens/s'],
    ['Local model', `${id}_gen_tps`, `generation, ${what}`, 'tokens/s'],
  ]),
  ['Local model', 'local_ttft_lectern_300', 'Lectern `alwaysRetrieve` on Thursday, `maxContextTokens` 300, `chunkChars` 400: first token', 's', atMost(10, 's')],
  ['Local model', 'local_ttft_lectern_300_prompt_tokens', 'its prompt, tokens (wllama\'s count)', ''],
  ['Local model', 'local_ttft_lectern_120', 'the same with `maxContextTokens` 120 and a one-line `persona.systemPrompt`: first token', 's', atMost(10, 's')],
  ['Local model', 'local_ttft_lectern_120_prompt_tokens', 'its prompt, tokens', ''],
  // Issue 32's first measurement (benches/candle_probe.mjs): candle 0.11.1's quantized Llama in wasm
  // (simd128) beside wllama 3.8.1 on the same SmolLM2-135M GGUFs, one thread.
  ...['Q4_1', 'Q4_0', 'Q8_0'].flatMap((quant) => [
    ['Local runtime', `probe_candle_${quant}_prompt_tps`, `candle, ${quant}: prompt read`, 'tokens/s', atLeast(60, 'tokens/s')],
    ['Local runtime', `probe_candle_${quant}_gen_tps`, `candle, ${quant}: generation`, 'tokens/s', atLeast(25, 'tokens/s')],
    ['Local runtime', `probe_wllama_${quant}_prompt_tps`, `wllama, ${quant}: prompt read`, 'tokens/s'],
    ['Local runtime', `probe_wllama_${quant}_gen_tps`, `wllama, ${quant}: generation`, 'tokens/s'],
  ]),
  // Issue 32 (benches/local_decoder.mjs): Lectern's own decoder (lectern/local, simd128, a Worker)
  // beside wllama 3.8.1 on SmolLM2-135M-Instruct Q4_1, the same prompt, one thread each.
  ['Local runtime', 'local_decoder_prompt_tps', 'Lectern\'s decoder: prompt read, 62-token prompt', 'tokens/s', atLeast(60, 'tokens/s')],
  ['Local runtime', 'local_decoder_gen_tps', 'Lectern\'s decoder: generation after it', 'tokens/s', atLeast(25, 'tokens/s')],
  ['Local runtime', 'local_decoder_long_prompt_tps', 'Lectern\'s decoder: prompt read, 378-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_plain_long_prompt_tps', 'Lectern\'s decoder, the plain SIMD build (no relaxed SIMD): prompt read, 378-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_plain_gen_tps', 'Lectern\'s decoder, the plain SIMD build: generation after it', 'tokens/s'],
  ['Local runtime', 'local_decoder_wllama_prompt_tps', 'wllama, the same run: prompt read, 62-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_wllama_gen_tps', 'wllama, the same run: generation', 'tokens/s'],
  ['Local runtime', 'local_decoder_followup_cached', 'a follow-up\'s prompt tokens read from the prefix cache (of 84)', ''],
  // The base Gemma 3 270M (Q4_K_M), the same bench: a 262k-token output layer (logits for the last
  // prompt position only), Q5_0/Q8_0/Q4_K/Q6_K tensors.
  ['Local runtime', 'local_decoder_gemma3_prompt_tps', 'Gemma 3 270M, Lectern\'s decoder: prompt read, ~60-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_gen_tps', 'Gemma 3 270M, Lectern\'s decoder: generation after it', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_load_s', 'Gemma 3 270M, Lectern\'s decoder: load (file in memory to ready)', 's'],
  ['Local runtime', 'local_decoder_gemma3_wllama_prompt_tps', 'Gemma 3 270M, wllama, the same run: prompt read', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_wllama_gen_tps', 'Gemma 3 270M, wllama, the same run: generation', 'tokens/s'],
  // Two threads (the page cross-origin isolated): Lectern's threaded build and one helper Worker
  // sharing each product's rows; wllama's llama.cpp with two pthreads. The 62-token prompt.
  ['Local runtime', 'local_decoder_prompt_tps_2t', 'Lectern\'s decoder, two threads: prompt read, 62-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_gen_tps_2t', 'Lectern\'s decoder, two threads: generation after it', 'tokens/s'],
  ['Local runtime', 'local_decoder_long_prompt_tps_2t', 'Lectern\'s decoder, two threads: prompt read, 378-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_wllama_prompt_tps_2t', 'wllama, two threads: prompt read, 62-token prompt', 'tokens/s'],
  ['Local runtime', 'local_decoder_wllama_gen_tps_2t', 'wllama, two threads: generation', 'tokens/s'],
  // The share of the parts shared with the helper Worker that it ran (0.5: an even split).
  ['Local runtime', 'local_decoder_helper_share_read_2t', 'Lectern\'s decoder, two threads: the parts of the 62-token prompt\'s shared work the helper Worker ran', ''],
  ['Local runtime', 'local_decoder_helper_share_gen_2t', 'Lectern\'s decoder, two threads: the parts of the generation\'s shared work the helper Worker ran', ''],
  ['Local runtime', 'local_decoder_gemma3_helper_share_read_2t', 'Gemma 3 270M, two threads: the parts of the prompt\'s shared work the helper Worker ran', ''],
  ['Local runtime', 'local_decoder_gemma3_helper_share_gen_2t', 'Gemma 3 270M, two threads: the parts of the generation\'s shared work the helper Worker ran', ''],
  ['Local runtime', 'local_decoder_gemma3_prompt_tps_2t', 'Gemma 3 270M, Lectern\'s decoder, two threads: prompt read', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_gen_tps_2t', 'Gemma 3 270M, Lectern\'s decoder, two threads: generation', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_wllama_prompt_tps_2t', 'Gemma 3 270M, wllama, two threads: prompt read', 'tokens/s'],
  ['Local runtime', 'local_decoder_gemma3_wllama_gen_tps_2t', 'Gemma 3 270M, wllama, two threads: generation', 'tokens/s'],
  // benches/native_llama.mjs: llama.cpp's llama-server natively (a portable AVX2 build) on the same
  // GGUF and prompts, the prompt cache off; its own timings, the median of three runs.
  ['Local runtime', 'native_llama_prompt_tps', 'llama.cpp natively (llama-server), one thread: prompt read, 62-token prompt', 'tokens/s'],
  ['Local runtime', 'native_llama_gen_tps', 'llama.cpp natively, one thread: generation', 'tokens/s'],
  ['Local runtime', 'native_llama_long_prompt_tps', 'llama.cpp natively, one thread: prompt read, 378-token prompt', 'tokens/s'],
  ['Local runtime', 'native_llama_prompt_tps_2t', 'llama.cpp natively, two threads: prompt read, 62-token prompt', 'tokens/s'],
  ['Local runtime', 'native_llama_gen_tps_2t', 'llama.cpp natively, two threads: generation', 'tokens/s'],
  ['Local runtime', 'native_llama_long_prompt_tps_2t', 'llama.cpp natively, two threads: prompt read, 378-token prompt', 'tokens/s'],
  ['Local runtime', 'native_llama_gemma3_prompt_tps', 'Gemma 3 270M, llama.cpp natively, one thread: prompt read', 'tokens/s'],
  ['Local runtime', 'native_llama_gemma3_gen_tps', 'Gemma 3 270M, llama.cpp natively, one thread: generation', 'tokens/s'],
  ['Local runtime', 'native_llama_gemma3_prompt_tps_2t', 'Gemma 3 270M, llama.cpp natively, two threads: prompt read', 'tokens/s'],
  ['Local runtime', 'native_llama_gemma3_gen_tps_2t', 'Gemma 3 270M, llama.cpp natively, two threads: generation', 'tokens/s'],
  // Lectern's decoder in Chromium over llama.cpp natively, the same run (RATIOS): issue 49's targets.
  ...RATIOS.map(({ id, what, target }) => ['Local runtime', id, what, '×', atLeast(target)]),
  // Where the 378-token prompt's reading time goes in Lectern's decoder, stage by stage (the
  // decoder's own clock: `generate`'s `profile`), natively (benches/local_prompt.rs) and in Chromium.
  ...[['', 'one thread (natively: its plain loops, no SIMD)'], ['_2t', 'two threads']].flatMap(([suffix, threads]) =>
    STAGES.map(([stage, what]) => [
      'Local runtime',
      `local_decoder_long_stage_${stage}_ms${suffix}`,
      `Lectern's decoder, 378-token prompt, ${threads}: ${what}`,
      'ms',
    ]),
  ),
  // Where a generated token's time goes (the 62-token prompt's answer, in Chromium), the rest of the
  // generation's time being sampling and the Worker's messages.
  ...[['', 'one thread'], ['_2t', 'two threads']].flatMap(([suffix, threads]) =>
    [...STAGES, ['samplingAndMessages', 'sampling, and the Worker\'s messages']].map(([stage, what]) => [
      'Local runtime',
      `local_decoder_gen_stage_${stage}_ms_per_token${suffix}`,
      `Lectern's decoder, a generated token, ${threads}: ${what}`,
      'ms',
    ]),
  ),
  // The same for Gemma 3 270M's ~60-token prompt and its answer, one thread (Q5_0, Q8_0, Q4_K and
  // Q6_K products; GeGLU; a 262k-token output layer).
  ...STAGES.map(([stage, what]) => [
    'Local runtime',
    `local_decoder_gemma3_stage_${stage}_ms`,
    `Gemma 3 270M, Lectern's decoder, ~60-token prompt, one thread: ${stage === 'activation' ? 'GeGLU' : what}`,
    'ms',
  ]),
  ...[...STAGES, ['samplingAndMessages', 'sampling, and the Worker\'s messages']].map(([stage, what]) => [
    'Local runtime',
    `local_decoder_gemma3_gen_stage_${stage}_ms_per_token`,
    `Gemma 3 270M, Lectern's decoder, a generated token, one thread: ${stage === 'activation' ? 'GeGLU' : what}`,
    'ms',
  ]),
  ['Ingestion', 'longtask_worker', 'longest main-thread task adding 1.3 MB of text (Worker)', 'ms', atMost(50, 'ms')],
  ['Ingestion', 'longtask_page', 'longest main-thread task adding 1.3 MB of text (no Worker)', 'ms', atMost(50, 'ms')],
  // Issue 50 (benches/sync_engines/run.sh, docs/sync.md): yrs (Yjs) beside Automerge on the same
  // conversation of 1,000 messages of ~300 characters and the reading positions. No targets: they
  // inform the choice of engine. Sizes after wasm-opt -Oz, gzip -9; timings best of 5, natively
  // and of the wasm modules in node (not a browser: the Chromium column stays empty).
  ['Sync engines (issue 50)', 'sync_yrs_wasm_gzip_kb', 'yrs (Yjs): its wasm module over the empty one, gzip -9 after wasm-opt -Oz', 'KB'],
  ['Sync engines (issue 50)', 'sync_automerge_wasm_gzip_kb', 'automerge: its wasm module over the empty one, gzip -9 after wasm-opt -Oz', 'KB'],
  ['Sync engines (issue 50)', 'sync_empty_wasm_gzip_kb', 'the empty module subtracted (std, the allocator, wasm-bindgen\'s glue; no CRDT)', 'KB'],
  ['Sync engines (issue 50)', 'sync_yrs_build_ms', 'yrs: build the 1,000-message conversation (a transaction per message) and encode it', 'ms'],
  ['Sync engines (issue 50)', 'sync_automerge_build_ms', 'automerge: build the 1,000-message conversation (a commit per message) and save it', 'ms'],
  ['Sync engines (issue 50)', 'sync_yrs_wasm_build_ms', 'yrs: the same, its -Oz wasm module in node', 'ms'],
  ['Sync engines (issue 50)', 'sync_automerge_wasm_build_ms', 'automerge: the same, its -Oz wasm module in node', 'ms'],
  ['Sync engines (issue 50)', 'sync_yrs_load_ms', 'yrs: load the 1,000-message document', 'ms'],
  ['Sync engines (issue 50)', 'sync_automerge_load_ms', 'automerge: load the 1,000-message document', 'ms'],
  ['Sync engines (issue 50)', 'sync_yrs_merge_ms', 'yrs: merge a day offline (on each of two devices 200 messages and 50 position writes; sync v1 both ways)', 'ms'],
  ['Sync engines (issue 50)', 'sync_automerge_merge_ms', 'automerge: merge a day offline (the sync protocol until both are done)', 'ms'],
  ['Sync engines (issue 50)', 'sync_yrs_wasm_merge_ms', 'yrs: that merge (the sync step), its -Oz wasm module in node', 'ms'],
  ['Sync engines (issue 50)', 'sync_automerge_wasm_merge_ms', 'automerge: that merge (the sync step), its -Oz wasm module in node', 'ms'],
  ['Sync engines (issue 50)', 'sync_yrs_merge_kb', 'yrs: bytes exchanged by that merge', 'KB'],
  ['Sync engines (issue 50)', 'sync_automerge_merge_kb', 'automerge: bytes exchanged by that merge', 'KB'],
  ['Sync engines (issue 50)', 'sync_yrs_doc_kb', 'yrs: the 1,000-message document on disk (a v1 update)', 'KB'],
  ['Sync engines (issue 50)', 'sync_automerge_doc_kb', 'automerge: the 1,000-message document on disk (`save()`, which deflates)', 'KB'],
  ['Sync engines (issue 50)', 'sync_yrs_doc_gzip_kb', 'yrs: the same document, gzip -9', 'KB'],
  ['Sync engines (issue 50)', 'sync_automerge_doc_gzip_kb', 'automerge: the same document, gzip -9', 'KB'],
  // benches/sync_replica.mjs: the shipped sync module (lectern/sync) in Chromium on the document of
  // a 1,000-message conversation.
  ['Sync engines (issue 50)', 'sync_replica_receive_ms', 'lectern/sync in Chromium: a one-message remote update taken, the rules checked on a scratch copy of the whole document first (median)', 'ms'],
  ['Sync engines (issue 50)', 'sync_replica_snapshot_ms', 'lectern/sync in Chromium: the document encoded whole (what a fold keeps; median)', 'ms'],
  ['Sync engines (issue 50)', 'sync_replica_open_ms', 'lectern/sync in Chromium: a replica opened from that snapshot, its rules checked (median)', 'ms'],
  ['Sync engines (issue 50)', 'sync_replica_doc_kb', 'lectern/sync: that document\'s snapshot', 'KB'],
  ['Package', 'wasm_raw', '`pkg/lectern_bg.wasm` (the page module), raw', 'KB'],
  ['Package', 'wasm_gzip', '`pkg/lectern_bg.wasm` (the page module), gzip -9', 'KB', atMost(300, 'KB')],
  ['Package', 'wasm_brotli', '`pkg/lectern_bg.wasm` (the page module), brotli 11', 'KB'],
  ['Package', 'ingest_wasm_gzip', '`pkg/lectern_books_bg.wasm` (the books module: loaded on the first book use, and run by the worker), gzip -9', 'KB'],
  ['Package', 'page_gzip', 'what a page loads before its first book (the page module, its JS, the snippets and chunk loader it imports; no chunk), gzip -9', 'KB'],
  ['Package', 'package_gzip', 'every shipped file, gzip -9', 'KB'],
  ['Package', 'chat_gzip', '`<lectern-chat>` (`pkg/chat/*.js`, each file gzip -9, summed): all a chat page that opens the engine on first use loads before the chat is used', 'KB'],
  ['Package', 'first_answer_gzip', 'what a chat page loads before its first answer (the widget, the page module, its JS, the snippets and chunk loader it imports; no chunk), gzip -9', 'KB'],
];

function fmt(value) {
  const abs = Math.abs(value);
  if (abs > 0 && abs < 0.01) return String(Number(value.toPrecision(2)));
  if (abs < 10) return value.toLocaleString('en-US', { maximumSignificantDigits: 3 });
  return value.toLocaleString('en-US', { maximumFractionDigits: abs >= 100 ? 0 : 1 });
}

/** `{ id: { native?: number, chromium?: number } }` from a log's figure lines (the last of each wins). */
export function readFigures(text) {
  const all = {};
  for (const line of text.split('\n')) {
    const match = /^\s*FIGURE (\S+) (native|chromium) (\S+)\s*$/.exec(line);
    if (!match || !Number.isFinite(Number(match[3]))) continue;
    (all[match[1]] ??= {})[match[2]] = Number(match[3]);
  }
  return all;
}

function verdict(target, all, id) {
  if (!target) return '—';
  const envs = ['chromium', 'native'].filter((env) => all[id]?.[env] !== undefined);
  if (envs.length === 0) return '**not measured**';
  // The browser figure is the one that counts where there is one.
  const env = envs[0];
  const value = all[id][env];
  const where = env === 'native' ? ' natively (Chromium not measured)' : '';
  return target.met(value, env, all) ? `met${where}` : `**missed**${where}: ${target.gap(value, env, all)}`;
}

/**
 * The figures of a previous RESULTS.md (each row's native and Chromium cells, units dropped), for
 * `--carry`: a run of some benchmarks keeps the others' last figures, and says so.
 */
export function carriedFigures(text) {
  const all = {};
  const number = (cell) => {
    const value = Number(cell.trim().split(' ')[0].replaceAll(',', '').replace(/×$/, ''));
    return cell.trim() === '—' || !Number.isFinite(value) ? undefined : value;
  };
  for (const [, id, measure] of ROWS) {
    const line = text.split('\n').find((l) => l.startsWith(`| ${measure} |`));
    if (!line) continue;
    const [native, chromium] = line.slice(measure.length + 4).split(' | ');
    for (const [env, cell] of [['native', native], ['chromium', chromium]]) {
      const value = number(cell ?? '—');
      if (value !== undefined) (all[id] ??= {})[env] = value;
    }
  }
  // The runs the carried figures come from: the oldest (figures carried once already keep the date
  // of the run that measured them) to the newest (the run that wrote `text`).
  const newest = /^Measured (\d{4}-\d{2}-\d{2})/m.exec(text)?.[1];
  const oldest = /carried from (?:the run of|the runs of) (\d{4}-\d{2}-\d{2})/.exec(text)?.[1] ?? newest;
  const date = oldest === newest ? `the run of ${oldest}` : `the runs of ${oldest} to ${newest}`;
  // The TABLE sections: the table lines under each one's heading.
  const lines = text.split('\n');
  const sections = {};
  for (const [name, title] of Object.entries(TABLE_TITLES)) {
    const at = lines.indexOf(`#### ${title}`);
    if (at < 0) continue;
    const rows = [];
    for (const line of lines.slice(at + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line);
    }
    if (rows.length) sections[name] = rows;
  }
  return { all, date, sections };
}

/** The first cell of a markdown table row. */
const firstCell = (row) => row.split('|')[1]?.trim();

/**
 * TABLE sections measured whole by one command: a run replaces them (a carried row would be a
 * file no longer shipped, or a total that no longer adds up).
 */
const WHOLE_TABLES = new Set(['package_sizes']);

/**
 * The TABLE sections of this run over the carried ones: a section measured now keeps its header
 * and rows, then the carried rows it did not measure (another row of the same table, run before),
 * except a table measured whole, which replaces the carried one.
 */
export function mergeSections(carried, measured) {
  const out = { ...carried };
  for (const [name, rows] of Object.entries(measured)) {
    const labels = new Set(rows.map(firstCell));
    const carriedRows = WHOLE_TABLES.has(name) ? [] : (carried[name] ?? []).slice(2);
    const kept = carriedRows.filter((row) => !labels.has(firstCell(row)));
    out[name] = [...rows, ...kept];
  }
  return out;
}

/** The `TABLE <name> <markdown row>` lines of the logs, by name, in order. */
export function readTables(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const match = /^\s*TABLE (\S+) (\|.*)$/.exec(line);
    if (match) (out[match[1]] ??= []).push(match[2]);
  }
  return out;
}

/** Titles of the `TABLE` sections. */
const TABLE_TITLES = {
  package_sizes: 'Every shipped file, raw, gzip -9 and brotli q11 (`scripts/sizes.mjs`, after `scripts/build.sh`)',
  reader_evidence: 'Evidence recall, strategy by strategy (32 reader questions on Thursday, `benches/reader_evidence.rs`)',
  reader_answers: 'Answers to the reader questions, model by model (`benches/reader_answers.mjs`)',
};

/**
 * The figures the README shows (rows of `ROWS`, by id, in this order; `[id, words]` where the row's
 * own words lean on the row above it); docs/figures.md has them all.
 */
export const HEADLINE = [
  'first_answer_gzip',
  'wasm_gzip',
  'sse_parse',
  'agent_step',
  'exact_p50_53901',
  'ann_p50_53901',
  'longtask_worker',
  'reader_recall_default',
  'answers_quotes_facts',
  'answers_site_page31_first_s',
  ['local_decoder_gen_tps', "Lectern's own decoder (`lectern/local`), SmolLM2-135M-Instruct Q4_1, one thread: generation"],
  ['sync_yrs_wasm_gzip_kb', 'sync engine (issue 50), yrs (Yjs, chosen): its wasm module over an empty one, gzip -9'],
  ['sync_automerge_wasm_gzip_kb', 'sync engine, Automerge: the same'],
  ['sync_yrs_merge_ms', 'sync engine, yrs: merge a day offline (200 messages and 50 page turns on each of two devices)'],
  ['sync_automerge_merge_ms', 'sync engine, Automerge: the same merge'],
  ['sync_replica_receive_ms', 'lectern/sync: a one-message remote update taken by a 1,000-message document, its rules checked'],
];

const TABLE_HEAD = ['| measure | native | Chromium | target | |', '| --- | --- | --- | --- | --- |'];

/** One figure's table row. */
function tableRow(all, [, id, rowMeasure, unit, target], measure = rowMeasure) {
  // A cosine close to 1 is shown to 5 decimals (3 significant digits would round it to 1).
  const show = (v) => (unit === 'cosine' ? v.toFixed(5) : `${fmt(v)}${unit && unit !== '×' ? ' ' + unit : unit}`);
  const cell = (env) => (all[id]?.[env] === undefined ? '—' : show(all[id][env]));
  return `| ${measure} | ${cell('native')} | ${cell('chromium')} | ${target ? target.text : ''} | ${verdict(target, all, id)} |`;
}

/** The headline figures as one markdown table (the same rows as in `tables`). */
export function headlineTable(all) {
  const rows = HEADLINE.map((entry) => {
    const [id, words] = [entry].flat();
    const row = ROWS.find((r) => r[1] === id);
    if (!row) throw new Error(`HEADLINE: no row ${id}`);
    return tableRow(all, row, words);
  });
  return [...TABLE_HEAD, ...rows].join('\n');
}

/** The markdown tables, one per section. */
export function tables(all) {
  const out = [];
  let section = null;
  for (const row of ROWS) {
    if (row[0] !== section) {
      section = row[0];
      out.push('', `#### ${section}`, '', ...TABLE_HEAD);
    }
    out.push(tableRow(all, row));
  }
  const known = new Set(ROWS.map((row) => row[1]));
  const unknown = Object.keys(all).filter((id) => !known.has(id));
  if (unknown.length) out.push('', `Figures without a row here: ${unknown.join(', ')}.`);
  return out.join('\n').trim();
}

/** `text` with what lies between the lines `begin` and `end` replaced by `content`; throws if a marker is missing. */
export function replaceBetween(text, begin, end, content, file = 'the file') {
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file}: no ${begin} … ${end} block`);
  return `${text.slice(0, from)}${begin}\n${content}\n${text.slice(to)}`;
}

/** The figures' blocks of docs/figures.md (every table) and of the README (the headline), from `all` and `body`. */
function writeDocs({ docs, readme, all, body, date, carriedNote }) {
  const from = `From \`bench/RESULTS.md\`, measured ${date}${carriedNote} (\`npm run bench\`):`;
  if (docs) {
    writeFileSync(docs, replaceBetween(readFileSync(docs, 'utf8'), '<!-- bench:begin -->', '<!-- bench:end -->', `${from}\n\n${body}`, docs));
  }
  if (readme) {
    const block = `${from}\n\n${headlineTable(all)}`;
    writeFileSync(readme, replaceBetween(readFileSync(readme, 'utf8'), '<!-- bench-headline:begin -->', '<!-- bench-headline:end -->', block, readme));
  }
}

/** `--refresh`: the docs' blocks written again from a RESULTS.md as it stands (nothing measured, RESULTS.md untouched). */
function refresh({ out, docs, readme }) {
  const text = readFileSync(out, 'utf8');
  const date = /^Measured (\d{4}-\d{2}-\d{2})/m.exec(text)?.[1];
  const carried = /^Only some benchmarks ran on \S+: (\d+) figures are carried from (.*)\.$/m.exec(text);
  const carriedNote = carried ? ` (${carried[1]} figures carried from ${carried[2]})` : '';
  const body = text.slice(text.indexOf('\n#### ') + 1).trim();
  writeDocs({ docs, readme, all: carriedFigures(text).all, body, date, carriedNote });
}

function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const out = option('--out', 'bench/RESULTS.md');
  const docs = option('--docs', null);
  const readme = option('--readme', null);
  if (args.includes('--refresh')) return refresh({ out, docs, readme });
  const logs = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const logText = logs.map((log) => readFileSync(log, 'utf8')).join('\n');
  const measured = readFigures(logText);
  const date = new Date().toISOString().slice(0, 10);
  // --carry PREVIOUS: figures this run did not measure are kept from PREVIOUS, and the header says so.
  const carry = option('--carry', null);
  const carried = carry ? carriedFigures(readFileSync(carry, 'utf8')) : { all: {}, sections: {} };
  let all = { ...carried.all };
  for (const [id, envs] of Object.entries(measured)) all[id] = { ...envs };
  all = withRatios(all, measured);
  const kept = Object.keys(carried.all).filter((id) => !measured[id]);
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.arch()}`;
  const sections = mergeSections(carried.sections, readTables(logText));
  const extra = Object.entries(sections).map(([name, rows]) => [TABLE_TITLES[name] ?? name, rows]);
  const body = [tables(all), ...extra.map(([title, rows]) => `#### ${title}\n\n${rows.join('\n')}`)].join('\n\n');
  const results = [
    '# Benchmark results',
    '',
    `Measured ${date} by \`npm run bench\` (${machine}; headless Chromium for the browser column, the`,
    'release wasm build). Each figure is one run: expect ±20–30 % between runs on a shared machine.',
    ...(kept.length ? [`Only some benchmarks ran on ${date}: ${kept.length} figures are carried from ${carried.date}.`] : []),
    'A target is judged on the Chromium figure where there is one. Generated by',
    '`scripts/bench-results.mjs`; do not edit by hand.',
    '',
    body,
    '',
  ].join('\n');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, results);
  process.stdout.write(results);
  const carriedNote = kept.length ? ` (${kept.length} figures carried from ${carried.date})` : '';
  writeDocs({ docs, readme, all, body, date, carriedNote });
}

if (import.meta.url === `file://${process.argv[1]}`) main();
