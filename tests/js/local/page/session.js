// In the page (served with COOP/COEP from one origin): a whole reading session with a local
// model — wllama through Lectern's adapter, MiniLM in Lectern's worker, the Thursday book — used
// by tests/js/offline.test.mjs, and wllama's greedy answers for scripts/llama-reference.mjs and
// benches/local_decoder.mjs. Every timing is performance.now() in the page.
import { LoggerWithoutDebug, Wllama } from '/wllama/index.js';
import init, { Lectern } from '/pkg/lectern.js';
import { loadWllamaModel, wllamaProvider } from '/pkg/lectern_wllama.js';

/** A wllama instance that never reaches for its CDN build, its model loading with `onProgress`. */
export function startModel({ model, n_threads, n_batch, n_ctx, onProgress }) {
  const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { logger: LoggerWithoutDebug, suppressNativeLog: true });
  wllama.setCompat(null);
  const ready = loadWllamaModel(wllama, new URL(model, location.href).href, {
    n_threads,
    n_batch,
    n_ctx,
    useCache: false,
    onProgress,
  });
  return { wllama, ready };
}

/**
 * llama.cpp's greedy continuation of each of `prompts` (raw text, special tokens parsed), on
 * `threads` threads (default 1): `{ text, finish, timings, steps }` each, `steps` being each chosen token's id and
 * log-probability and the three likeliest as `[id, logprob]` (the reference of
 * scripts/llama-reference.mjs, and wllama's side of benches/local_decoder.mjs).
 */
export async function greedyCompletions({ model, prompts, tokens, threads = 1 }) {
  const { wllama, ready } = startModel({ model, n_threads: threads, n_batch: 512, n_ctx: 2048 });
  await ready;
  const out = [];
  for (const prompt of prompts) {
    const r = await wllama.createCompletion({ prompt, max_tokens: tokens, temperature: 0, logprobs: 3 });
    const choice = r.choices[0];
    const steps = (choice.logprobs?.content ?? []).map((step) => ({
      id: step.id,
      logprob: step.logprob,
      top: step.top_logprobs.map((t) => [t.id, t.logprob]),
    }));
    out.push({ text: choice.text, finish: choice.finish_reason, timings: r.timings, steps });
  }
  await wllama.exit();
  return out;
}

/**
 * Opens Lectern with the local model, adds the book, sets the reader's page, asks `question`
 * with `alwaysRetrieve` and `maxContextTokens`; resolves with what happened and when.
 * `embedder: 'default'` uses Lectern's default embedder instead of MiniLM; `chunkChars` sets
 * the passage size; `systemPrompt` replaces the built-in prompt; `endBefore` cuts the book
 * before that text (e.g. a chapter heading).
 */
export async function readingSession({ model, threads, maxContextTokens, readerPage, question, maxTokens, embedder = 'minilm', chunkChars, systemPrompt, endBefore }) {
  const started = performance.now();
  const progress = [];
  const { wllama, ready } = startModel({
    model,
    n_threads: threads,
    n_batch: 512,
    n_ctx: 2048,
    onProgress: (p) => progress.push({ ...p, at: performance.now() - started }),
  });
  await init();
  const requests = [];
  const provider = wllamaProvider(wllama, { model: 'smollm2-135m-instruct', ready, maxTokens, sampling: { temp: 0 } });
  const call = provider.call;
  provider.call = (request, options) => {
    requests.push({ request, signal: options.signal instanceof AbortSignal, at: performance.now() });
    return call(request, options);
  };
  const events = [];
  const lectern = await Lectern.open({
    dbName: `offline-${Math.random()}`,
    provider,
    ...(embedder === 'minilm'
      ? { embedder: { kind: 'minilm', modelUrl: '/minilm/model.safetensors', vocabUrl: '/minilm/vocab.txt' } }
      : {}),
    retrieval: { strategy: 'alwaysRetrieve', maxContextTokens, ...(chunkChars ? { chunkChars, overlapChars: 50 } : {}) },
    ...(systemPrompt ? { persona: { systemPrompt } } : {}),
    onEvent: (ev) => events.push({ ...ev, at: performance.now() }),
  });
  const whole = await (await fetch('/books/chesterton-thursday.txt')).text();
  const text = endBefore && whole.includes(endBefore) ? whole.slice(0, whole.indexOf(endBefore)) : whole;
  const bookStarted = performance.now();
  const book = await lectern.addBook({ title: 'The Man Who Was Thursday', author: 'G. K. Chesterton', text });
  const bookMs = performance.now() - bookStarted;
  await lectern.setCurrentPage(book.id, readerPage);
  const conversation = await lectern.createConversation({ title: 'Reading', bookId: book.id });
  await ready;
  const asked = performance.now();
  const reply = await lectern.send(conversation.id, question);
  const finished = performance.now();
  await lectern.close();
  const multithread = wllama.isMultithread();
  await wllama.exit();
  const deltas = events.filter((e) => e.type === 'textDelta');
  const usage = events.find((e) => e.type === 'tokenUsage');
  const firstToken = deltas.length ? deltas[0].at - asked : null;
  const generatingMs = deltas.length ? finished - deltas[0].at : 0;
  return {
    book: { pageCount: book.pageCount, chunkCount: book.chunkCount, ms: bookMs },
    progress: progress.map(({ phase, loaded, total, loadMs }) => ({ phase, loaded, total, loadMs })),
    loadMs: progress.find((p) => p.phase === 'ready')?.loadMs ?? null,
    askedAtMs: asked - started,
    system: requests[0]?.request.messages[0]?.content ?? '',
    calls: requests.length,
    signalPassed: requests.every((r) => r.signal),
    answer: reply.text,
    deltas: deltas.length,
    usage,
    firstTokenMs: firstToken,
    tokensPerSecond: usage && generatingMs > 0 ? ((usage.outputTokens - 1) * 1000) / generatingMs : null,
    multithread,
    crossOriginIsolated: self.crossOriginIsolated,
  };
}

/**
 * What llama.cpp's tokenizer makes of each of `texts`, as far as wllama 3.8.1 shows it (it has no
 * tokenize call; scripts/tokens-reference.mjs turns this into token ids): the text's token count
 * as a prompt, and the top `top` tokens after sampling one token with the text itself as a
 * `logit_bias` of `bias` (llama.cpp tokenizes it, control tokens unparsed, and adds the bias once
 * per occurrence) at `temperature`, each `{ id, bytes, prob }`. The ids in `hidden` are kept out
 * of the list (byte tokens: wllama fails on a lone byte of a character in its JSON). Also the
 * model's BOS, EOS and EOT ids and whether a prompt starts with BOS.
 */
export async function biasedTokens({ model, texts, bias, temperature, top, hidden }) {
  const { wllama, ready } = startModel({ model, n_threads: 1, n_batch: 512, n_ctx: 2048 });
  await ready;
  // The sampled token is EOS, far above the others: its text is empty, never a lone byte.
  const fixed = [[wllama.getEOS(), bias * 16], ...hidden.map((id) => [id, -bias * 1000])];
  const cases = [];
  for (const text of texts) {
    const r = await wllama.createCompletion({
      prompt: text,
      max_tokens: 1,
      logit_bias: [[text, bias], ...fixed],
      samplers: ['top_k', 'temperature'],
      top_k: top,
      temperature,
      n_probs: top,
      post_sampling_probs: true,
    });
    const probs = r.choices[0].logprobs.content[0].top_probs.map(({ id, bytes, prob }) => ({ id, bytes, prob }));
    cases.push({ text, promptTokens: r.usage.prompt_tokens, probs });
  }
  const special = { bos: wllama.getBOS(), eos: wllama.getEOS(), eot: wllama.getEOT(), addBos: wllama.mustAddBosToken() };
  await wllama.exit();
  return { ...special, cases };
}
