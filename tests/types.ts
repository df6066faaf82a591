// Type-checked with `tsc --noEmit --strict` against the built package: the
// README example and every public type, as a user of the npm package writes them.
import init, {
  Lectern,
  type Conversation,
  type LecternError,
  type LecternEvent,
  type LecternOptions,
  type Message,
  type SendResult,
  type Usage,
} from 'lectern';

export async function readmeExample(port: number): Promise<void> {
  await init();
  const lectern = await Lectern.open({
    dbName: 'demo',
    provider: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'mock', apiKey: 'k', stream: true },
    onEvent: (ev) => console.log(ev.type, ev),
  });
  const conv: Conversation = await lectern.createConversation({ title: 'First' });
  const reply: SendResult = await lectern.send(conv.id, 'Hello');
  const messages: Message[] = await lectern.messages(conv.id);
  console.log(reply.text, reply.usage.inputTokens, reply.usage.outputTokens, messages.length);
  await lectern.close();
}

export function describeEvent(event: LecternEvent): string {
  switch (event.type) {
    case 'textDelta':
      return `${event.conversationId}/${event.turnId}: ${event.text}`;
    case 'tokenUsage':
      return `${event.inputTokens} in, ${event.outputTokens} out, ${event.costUsd ?? 'unknown'} USD`;
    case 'finish':
      return event.text;
    case 'error':
      return `${event.name}: ${event.message}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export function describeError(error: unknown): string {
  const e = error as LecternError;
  switch (e.name) {
    case 'RateLimitError':
      return `wait ${e.retryAfterMs ?? 0} ms`;
    case 'ApiError':
    case 'AuthError':
      return `HTTP ${e.status ?? 0}: ${e.body ?? ''}`;
    case 'NotFoundError':
      return `no ${e.what ?? 'record'} ${e.id ?? ''}`;
    default:
      return e.message;
  }
}

export const options: LecternOptions = {
  provider: {
    kind: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    headers: { 'x-team': 'docs' },
    temperature: 0.2,
    maxTokens: 512,
  },
  maxHistoryMessages: 20,
};

export async function withoutTitle(lectern: Lectern): Promise<string> {
  const conversation = await lectern.createConversation();
  const all: Conversation[] = await lectern.conversations();
  await lectern.deleteConversation(conversation.id);
  return `${all.length}`;
}

export function total(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cachedInputTokens;
}

// @ts-expect-error: the provider is required.
export const missingProvider: LecternOptions = { dbName: 'x' };
// @ts-expect-error: unknown provider kinds are rejected.
export const badKind: LecternOptions = { provider: { kind: 'smoke', baseUrl: '', model: '' } };
// @ts-expect-error: message roles are a closed set.
export const badRole: Message['role'] = 'robot';
