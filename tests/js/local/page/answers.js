// In the page (served with COOP/COEP): the reader questions of benches/reader_answers.mjs asked
// through Lectern, one conversation each, with an in-browser model (a GGUF through wllama or
// Lectern's own decoder) or the reading site's Demo model; what each answer said, when its first words came, and its sources.
import init, { Lectern } from '/pkg/lectern.js';
import { wllamaProvider } from '/pkg/lectern_wllama.js';
import { startModel } from '/session.js';

/**
 * The provider: `quotes` (Lectern's quoted answer, no model), `demo` (the site's Demo model), the local model at `model` through Lectern's own
 * decoder (`runtime: 'lectern'`, ChatML, on `threads` threads), or through wllama by its chat template or, with
 * `completion`, in completion form (a base model).
 */
async function provider({ model, name, completion, demo, quotes, maxTokens, runtime, threads }) {
  if (quotes) return { provider: { kind: 'quotes' }, stop: async () => {} };
  if (demo) return { provider: (await import('/site/demo-model.js')).demoProvider(), stop: async () => {} };
  if (runtime === 'lectern') {
    const { LocalModel, localProvider } = await import('/pkg/lectern_local_provider.js');
    const local = new LocalModel(model, { cacheName: null, threads });
    await local.ready;
    return { provider: localProvider(local, { model: name, maxTokens }), local, stop: async () => local.close() };
  }
  const { wllama, ready } = startModel({ model, n_threads: 1, n_batch: 512, n_ctx: 2048 });
  await ready;
  const local = wllamaProvider(wllama, { model: name, ready, maxTokens, completion, sampling: { temp: 0 } });
  return { provider: local, stop: () => wllama.exit() };
}

/**
 * Adds the Thursday book, then asks each of `questions` (`{ id, page, question }`) at its page in
 * a conversation of its own with `retrieval`; resolves with one record per question. `readAhead`
 * (Lectern's own decoder): the conversation's system prompt is read into the model's prefix cache
 * before the question, as the reading site does while the reader reads.
 */
export async function answerQuestions({ model, name, completion, demo = false, quotes = false, runtime, threads = 1, readAhead = false, retrieval, embedder, maxTokens = 120, questions }) {
  await init();
  const { provider: chosen, local, stop } = await provider({ model, name, completion, demo, quotes, maxTokens, runtime, threads });
  let firstDelta = null;
  const lectern = await Lectern.open({
    dbName: `answers-${Math.random()}`,
    provider: chosen,
    retrieval,
    ...(embedder ? { embedder } : {}),
    onEvent: (ev) => {
      if (ev.type === 'textDelta' && firstDelta === null) firstDelta = performance.now();
    },
  });
  const text = await (await fetch('/books/chesterton-thursday.txt')).text();
  const book = await lectern.addBook({ title: 'The Man Who Was Thursday', author: 'G. K. Chesterton', text });
  // With an embedder, the questions wait for the book's vectors (computed behind addBook).
  while (embedder && !(await lectern.books())[0].dimensions) await new Promise((r) => setTimeout(r, 500));
  const answers = [];
  for (const { id, page, question } of questions) {
    await lectern.setCurrentPage(book.id, page);
    const conversation = await lectern.createConversation({ bookId: book.id });
    if (readAhead && local) {
      const { chatmlPrompt } = await import('/pkg/lectern_local_provider.js');
      await local.prefill(chatmlPrompt([{ role: 'system', content: await lectern.systemPrompt(conversation.id) }]));
    }
    firstDelta = null;
    const asked = performance.now();
    const reply = await lectern.send(conversation.id, question);
    answers.push({
      id,
      answer: reply.text,
      firstMs: (firstDelta ?? performance.now()) - asked,
      inputTokens: reply.usage.inputTokens,
      sources: reply.sources.map(({ startPage, endPage, via, text: passage }) => ({ startPage, endPage, via, text: passage })),
      grounded: reply.sourceCheck?.grounded ?? null,
      sentences: reply.sourceCheck?.sentences?.length ?? 0,
      unsupported: reply.sourceCheck?.sentences?.filter((s) => !s.supported).length ?? 0,
      unsupportedTexts: reply.sourceCheck?.sentences?.filter((s) => !s.supported).map((s) => s.text) ?? [],
    });
  }
  await lectern.close();
  await stop();
  return answers;
}
