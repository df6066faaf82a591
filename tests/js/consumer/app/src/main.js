// A consumer's app: Lectern and its chat element imported by package name. It
// runs one streamed turn against the model server named by `?model=`, adds a
// small book (in Lectern's worker) and searches it, then hands the instance to
// <lectern-chat>; the outcome goes to `window.consumerResult` for the test.
import init, { Lectern } from 'lectern';
// Imported for its effect alone, as a page drops the element in: it defines <lectern-chat>.
import 'lectern/chat';

async function run() {
  await init();
  const baseUrl = new URL(location.href).searchParams.get('model');
  const lectern = await Lectern.open({
    dbName: 'consumer-app',
    provider: { kind: 'openai', baseUrl, model: 'mock', stream: true },
  });
  const conversation = await lectern.createConversation({ title: 'Consumer' });
  const deltas = [];
  let finish = null;
  for await (const event of lectern.stream(conversation.id, 'Hello from a consumer')) {
    if (event.type === 'textDelta') deltas.push(event.text);
    if (event.type === 'finish') finish = event;
    if (event.type === 'error') throw new Error(`${event.error?.name}: ${event.error?.message}`);
  }
  const text = 'Ada kept lighthouses on the northern coast.\n\nThe keeper wrote a diary every evening.';
  const book = await lectern.addBook({ title: 'Keepers', text });
  const hits = await lectern.search('lighthouse diary', { bookIds: [book.id], k: 2 });
  const chat = document.querySelector('lectern-chat');
  chat.lectern = lectern;
  chat.conversationId = conversation.id;
  return {
    deltas,
    finished: finish !== null,
    reply: deltas.join(''),
    chunkCount: book.chunkCount,
    hits: hits.length,
    element: customElements.get('lectern-chat') !== undefined && chat instanceof customElements.get('lectern-chat'),
  };
}

run().then(
  (result) => (window.consumerResult = result),
  (error) => (window.consumerResult = { error: `${error?.name}: ${error?.message}` }),
);
