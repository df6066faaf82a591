// Type-checked by tests/js/consumer.test.mjs with `tsc --strict` against the
// installed tarball, under moduleResolution "bundler" and "node16".
import init, { Lectern, type LecternEvent, type LecternOptions } from 'lectern';
import { LecternChat } from 'lectern/chat';

export async function start(baseUrl: string): Promise<string> {
  await init();
  const options: LecternOptions = { provider: { kind: 'openai', baseUrl, model: 'mock', stream: true } };
  const lectern = await Lectern.open(options);
  const conversation = await lectern.createConversation({ title: 'Typed' });
  let text = '';
  for await (const event of lectern.stream(conversation.id, 'Hello')) {
    const typed: LecternEvent = event;
    if (typed.type === 'textDelta') text += typed.text;
  }
  const chat: LecternChat | null = document.querySelector('lectern-chat');
  if (chat) {
    chat.lectern = lectern;
    chat.conversationId = conversation.id;
    chat.focus();
  }
  const created: LecternChat = document.createElement('lectern-chat');
  document.body.append(created);
  return text;
}
