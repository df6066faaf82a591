// Type-checked with `tsc --noEmit --strict` against the built package: the
// README example and every public type, as a user of the npm package writes them.
import init, {
  Lectern,
  type Book,
  type BookPage,
  type EgressEntry,
  type InterruptedTurn,
  type IngestProgress,
  type SearchResult,
  type SearchMode,
  type ConfigReport,
  type CacheScope,
  type FailedSend,
  type AskOnceOptions,
  type OneShotOutcome,
  type ToolContext,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type Conversation,
  type LecternError,
  type LecternEvent,
  type LecternOptions,
  type Message,
  type ReasoningBlock,
  type SendOutcome,
  type ResponseSchema,
  type SendResult,
  type Usage,
  type UsageTotals,
  type Budget,
  type ApprovalDecision,
  type OnNewMessage,
  type SendApprovals,
  type ToolDecision,
  type BuiltinTool,
  type WeatherOptions,
  type PendingApproval,
  type RunRecord,
  type ToolCallRecord,
  type StorageClosedEvent,
  type IngestFailedEvent,
  type InstanceWarningEvent,
  type StorageReason,
  type StorageUsage,
  type ChatMessage,
  type ConversationExport,
  type ExportOptions,
  type Grant,
  type ImportInput,
  type LecternBundle,
  type PendingTurn,
  type ToolDefinition,
} from 'lectern';
import { completionPrompt, loadWllamaModel, wllamaProvider, type CompletionForm, type WllamaLike, type WllamaLoadProgress } from 'lectern/wllama';
import { CHAT_REPETITION, chatmlPrompt, LocalModel, localProvider, type LocalMessage } from 'lectern/local';
import {
  CITED_SCHEMA,
  downloadPromptApiModel,
  PromptApiError,
  promptApiAvailability,
  promptApiProvider,
  type PromptApiAvailability,
  type PromptApiProvider,
} from 'lectern/prompt-api';
import { LecternChat, safeHref, type ChatMention, type LecternChatEventMap } from 'lectern/chat';
import { SyncClient, type SyncChanges } from 'lectern/sync';

export async function readmeExample(port: number): Promise<void> {
  await init();
  const lectern = await Lectern.open({
    dbName: 'demo',
    provider: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'mock', apiKey: 'k', stream: true },
    onEvent: (ev) => console.log(ev.type, ev),
  });
  const conv: Conversation = await lectern.createConversation({ title: 'First' });
  const outcome = await lectern.send(conv.id, 'Hello');
  if (!outcome.success) throw new Error(outcome.text); // only with friendlyErrors
  const reply: SendResult = outcome;
  const messages: Message[] = await lectern.messages(conv.id);
  console.log(reply.text, reply.usage.inputTokens, reply.usage.outputTokens, messages.length);
  await lectern.close();
}

export function describeEvent(event: LecternEvent): string {
  switch (event.type) {
    case 'textDelta':
      return `${event.conversationId}/${event.turnId}: ${event.text}`;
    case 'reasoningDelta':
      return `(thinking) ${event.text}`;
    case 'tokenUsage':
      return `${event.inputTokens} in, ${event.outputTokens} out, ${event.costUsd ?? 'unknown'} USD`;
    case 'stepStart':
      return `step ${event.step}`;
    case 'toolCallDelta':
      return `${event.toolName ?? '?'} += ${event.argumentsDelta}`;
    case 'toolInvocation':
      return `${event.toolName}(${event.argumentsText}) #${event.callId}, fields: ${Object.keys(event.arguments ?? {}).join()}`;
    case 'toolResult':
      return `${event.toolName} -> ${event.result ?? event.error} in ${event.durationMs} ms${event.cached ? ' (cached)' : ''}`;
    case 'stepFinish':
      return `step ${event.step} ended: ${event.finishReason}, ${event.toolCalls} tool calls`;
    case 'approvalRequested':
      return `waiting for ${event.calls.map((c) => `${c.toolName}#${c.callId}`).join(', ')} until ${event.expiresAt}`;
    case 'finish':
      return event.text;
    case 'warning':
      return `warning ${event.code}: ${event.message}`;
    case 'contextCompressed':
      return event.fallback === undefined
        ? `summarised ${event.summarizedMessages} messages (through #${event.throughSeq ?? '-'}, ~${event.summaryTokens} tokens)`
        : `summary failed: ${event.fallback}`;
    case 'error':
      return `${event.name}: ${event.message}`;
    case 'runFinished':
      return `run ${event.runId} ${event.status === 'proposed' ? 'waits for review' : event.status}`;
    case 'workingState':
      return `${event.remote ? 'another tab' : 'a tool or the host'} set ${JSON.stringify(event.state)}`;
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
    case 'BudgetExceededError':
      return `${e.scope} budget of ${e.max} ${e.limit} reached after ${e.usage?.inputTokens ?? 0} input tokens (${e.spent} spent, ${e.next} next)`;
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
  context: { strategy: 'fullHistory', maxMessages: 20 },
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

export const anthropic: LecternOptions = {
  dbName: 'reading',
  provider: {
    kind: 'anthropic',
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-...',
    maxTokens: 1024,
    maxRetries: 3,
    rateLimit: { requestsPerMinute: 50, tokensPerMinute: 40000 },
    timeouts: { firstChunkMs: 30000, idleMs: 15000, totalMs: null },
    prices: { 'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 } },
  },
};

/** Anthropic with extended thinking, shown to the reader; DeepSeek gets its reasoning back on tool calls. */
export const thinking: LecternOptions = {
  showThinking: true,
  provider: { kind: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-ant-...', maxTokens: 8192, thinking: { budgetTokens: 4096 } },
};

export const deepseek: LecternOptions = {
  provider: {
    kind: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-reasoner',
    replayReasoning: true,
    maxTokensParam: 'max_tokens',
  },
};

export async function thoughtsOf(lectern: Lectern, conversationId: string): Promise<string[]> {
  const messages = await lectern.messages(conversationId);
  const blocks: ReasoningBlock[] = messages.flatMap((m) => m.reasoning ?? []);
  return blocks.map((b) => (b.redacted !== undefined ? '(redacted)' : `${b.text} [${b.signature ?? 'unsigned'}]`));
}

export const custom: LecternOptions = {
  provider: {
    kind: 'custom',
    model: 'Llama-3.2-1B',
    call: async function* (request: ChatCompletionRequest): AsyncGenerator<ChatCompletionChunk> {
      const last = request.messages[request.messages.length - 1];
      yield { choices: [{ delta: { content: last.role === 'user' ? last.content : '' }, finish_reason: 'stop' }] };
    },
  },
};

export const plainCustom: LecternOptions = {
  provider: {
    kind: 'custom',
    stream: false,
    call: async () => ({ choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }),
  },
};

/** Lectern's own decoder: a model in its Worker as the provider, and its messages read directly. */
export async function ownDecoder(): Promise<Lectern> {
  const model = new LocalModel('/models/SmolLM2-135M-Instruct.Q4_1.gguf', { cacheName: null });
  await model.ready;
  const prompt: string = chatmlPrompt([{ role: 'user', content: 'Hi' }]);
  for await (const message of model.generate(prompt, { maxTokens: 8, ...CHAT_REPETITION, repeatStop: 12 })) {
    const seen: LocalMessage = message;
    if (seen.type === 'done' && seen.finish !== 'repetition') console.log(seen.finish, seen.completionTokens);
  }
  const lectern = await Lectern.open({ provider: localProvider(model, { model: 'smollm2', maxTokens: 64, repeatPenalty: 1.05 }) });
  const { id } = await lectern.createConversation({ title: 'Reading' });
  const system: string = await lectern.systemPrompt(id);
  const read = await model.prefill(chatmlPrompt([{ role: 'system', content: system }]), { signal: AbortSignal.timeout(5000) });
  if (read) console.log(read.promptTokens, read.cachedTokens, read.ms);
  return lectern;
}

/** A local model in the page through the wllama adapter, with a retrieval budget. */
export async function localModel(wllama: WllamaLike, bar: (progress: WllamaLoadProgress) => void): Promise<Lectern> {
  const ready = loadWllamaModel(wllama, '/models/SmolLM2-135M-Instruct.Q4_1.gguf', {
    n_ctx: 2048,
    n_threads: 2,
    onProgress: (p) => (p.phase === 'download' ? bar(p) : p.phase === 'ready' ? console.log(p.loadMs) : undefined),
  });
  return Lectern.open({
    provider: wllamaProvider(wllama, { model: 'smollm2-135m', ready, maxTokens: 64, timeouts: { idleMs: 30000 } }),
    retrieval: { strategy: 'alwaysRetrieve', maxContextTokens: 300 },
    onEvent: (ev) => {
      if (ev.type === 'tokenUsage' && ev.estimated) console.log('estimated', ev.inputTokens);
    },
  });
}

/** The browser's own model: its availability, the download from a click, a cited provider, its errors. */
export async function browserModel(button: HTMLButtonElement, bar: HTMLProgressElement): Promise<Lectern | null> {
  const state: PromptApiAvailability = await promptApiAvailability({ expectedInputs: [{ type: 'text', languages: ['en'] }] });
  if (state === 'unavailable') return null;
  button.onclick = () => {
    downloadPromptApiModel({ onProgress: ({ loaded }) => (bar.value = loaded), signal: AbortSignal.timeout(600000) }).catch((e: unknown) => {
      if (e instanceof PromptApiError && e.code === 'needs-user-activation') console.warn(e.message);
    });
  };
  const provider: PromptApiProvider = promptApiProvider({
    cited: true,
    stream: false,
    keepSessions: 1,
    onContextOverflow: ({ contextUsage, contextWindow }) => console.warn(contextUsage, contextWindow),
    timeouts: { firstChunkMs: 60000 },
  });
  const required: readonly string[] = CITED_SCHEMA.required;
  console.log(required.length);
  addEventListener('pagehide', () => provider.destroy());
  return Lectern.open({ provider, approvals: { default: 'auto' } });
}

/** A base model (no chat template) in completion form: the default form, or the host's own. */
export function baseModels(wllama: WllamaLike) {
  const own = (messages: ReadonlyArray<{ role: string; content: string | null }>): CompletionForm => ({
    prompt: `${completionPrompt(messages).prompt} In short:`,
    stop: ['\n'],
  });
  return [wllamaProvider(wllama, { model: 'gemma3-270m', completion: true }), wllamaProvider(wllama, { completion: own })];
}

export const localServer: LecternOptions = {
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', local: true },
  limits: { turnTimeoutMs: 300000 },
};

export const customWithSignal: LecternOptions = {
  provider: {
    kind: 'custom',
    local: true,
    call: async (request, { signal }) => {
      const response = await fetch('/local-model', { method: 'POST', body: JSON.stringify(request), signal });
      return response.json();
    },
  },
};

export function usageNote(usage: Usage): string {
  return usage.estimated ? `~${usage.inputTokens} (estimated)` : `${usage.inputTokens}`;
}

export async function oneShot(lectern: Lectern, bookId: string): Promise<string[]> {
  const options: AskOnceOptions = { bookId, approvals: { autoApprove: true }, maxOutputTokens: 200 };
  const outcome: OneShotOutcome = await lectern.askOnce('Who is Syme?', options);
  if (!outcome.success) return [outcome.error.message];
  const roles: string[] = outcome.messages.map((m: Message) => m.role);
  return [outcome.text, ...roles];
}

export async function abortable(lectern: Lectern, id: string): Promise<string> {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1000);
  try {
    return (await lectern.send(id, 'Tell me a long story', { signal: controller.signal, model: 'gpt-4o', maxOutputTokens: 400, maxContextTokens: 300 })).text;
  } catch (error) {
    const e = error as LecternError;
    if (e.name === 'AbortError' || e.name === 'ConnectionError') return e.partialText ?? '';
    throw error;
  }
}

export async function toolsAndEvents(lectern: Lectern, id: string): Promise<string[]> {
  lectern.registerTool({
    name: 'weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    async execute(args: { city: string }, ctx: ToolContext) {
      ctx.signal.throwIfAborted();
      ctx.setWorkingState({ lastCity: args.city, user: ctx.userId });
      return { city: args.city, celsius: 21 };
    },
    timeoutMs: 5000,
    cacheTtlMs: 60000,
  });
  const shared: CacheScope = 'global';
  lectern.registerTool({
    name: 'exchange_rate',
    description: 'Today\'s EUR to USD rate, the same for everyone',
    parameters: { type: 'object', properties: {} },
    execute: () => 1.08,
    cacheTtlMs: 3_600_000,
    cacheScope: shared,
  });
  lectern.clearToolCache('weather');
  lectern.clearToolCache();
  const report: ConfigReport = lectern.validateConfig();
  await lectern.setWorkingState(id, { step: 1 });
  const state: Record<string, unknown> | null = await lectern.workingState(id);
  const seen: string[] = [report.valid ? 'valid' : report.errors.join(', '), String(state?.step)];
  for await (const event of lectern.stream(id, 'Weather in Oslo?', { userId: 'u-1', mentions: [{ type: 'doc', id: 'd1' }] })) {
    if (event.type === 'toolResult') seen.push(`${event.toolName}: ${event.result ?? event.error}`);
    if (event.type === 'stepFinish') seen.push(`step ${event.step}: ${event.finishReason}`);
  }
  return seen;
}

export async function friendly(lectern: Lectern, id: string): Promise<string> {
  const outcome: SendOutcome = await lectern.send(id, 'Hi');
  if (outcome.status === 'failed') {
    const failed: FailedSend = outcome;
    return `${failed.text} (${failed.error.name})`;
  }
  return outcome.text;
}

export const layered: LecternOptions = {
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  persona: { prompt: 'librarian', temperature: 0.2, tools: ['weather'], maxOutputTokens: 800 },
  modelProfile: { contextLength: 8192, temperature: 0.7, maxOutputTokens: 1024 },
  allowedTools: ['weather', 'search'],
  limits: { maxIterations: 5, maxToolCalls: 8, turnTimeoutMs: 60000, toolTimeoutMs: 5000, lockWaitMs: 2000 },
  context: { strategy: 'tokenBudget', maxTokens: 6000 },
  parallelToolCalls: false,
  friendlyErrors: true,
  redactArguments: ['password'],
  userId: 'tenant-42',
  prompts: { librarian: 'You help readers of {{site}}.' },
  promptVariables: { site: 'Lectern Books' },
  resolveMention: async (mention) => `Contents of ${mention.type} ${mention.id}`,
  maxToolResultChars: 20_000,
  budget: { maxTokens: 20_000 },
  budgetPeriod: { maxCostUsd: 2.5 },
};

export const summarizing: LecternOptions = {
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  context: { strategy: 'summarize', maxTokens: 6000, keepRecent: 8 },
  prompts: { summarize_history: 'Summarise the conversation so far in at most {{max_words}} words.' },
};

export function whatLeft(entries: EgressEntry[]): string[] {
  return entries.map((e) => {
    const where = e.local ? 'this device' : (e.host ?? `a ${e.provider} function`);
    if (e.purpose === 'tool' && e.toolRequest) return `step ${e.step} ${e.toolRequest.toolName} -> ${where}: ${e.toolRequest.method} ${e.toolRequest.url}`;
    const pages = e.passages.map((p) => `${p.startPage}-${p.endPage} (${p.via})`).join(', ');
    const tools = e.toolResults.map((r) => `${r.toolName}#${r.callId}: ${r.chars} chars`).join(', ');
    return `step ${e.step} ${e.purpose} -> ${where} (${e.model}): ${e.inputTokens}${e.estimated ? '~' : ''} in, pages ${pages}, tools ${tools}, ${e.mentions.length} mentions, ${e.tools.join('/')}`;
  });
}

export async function replayAll(lectern: Lectern, conversationId: string): Promise<string[]> {
  const lines: string[] = [];
  for (const turnId of await lectern.recordedTurns(conversationId)) {
    for await (const event of lectern.replay(turnId)) lines.push(describeEvent(event));
  }
  return lines;
}

/** Resumes every turn a closed tab cut off; returns each answer's text (or error name). */
export async function resumeAll(lectern: Lectern, conversationId?: string): Promise<string[]> {
  const turns: InterruptedTurn[] = await lectern.interruptedTurns(conversationId);
  const answers: string[] = [];
  for (const turn of turns) {
    const cut = turn.interruptedCalls.map((c) => `${c.toolName}#${c.callId}`).join(', ');
    const outcome = await lectern.resumeTurn(turn.turnId, { signal: new AbortController().signal });
    const head = `${turn.conversationId} ${turn.steps}/${turn.completedToolCalls} [${cut}] ${turn.startedAt}-${turn.updatedAt}`;
    answers.push(`${head}: ${outcome.success ? outcome.text : outcome.error.name}`);
  }
  return answers;
}

export const recording: LecternOptions = {
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  recordEvents: true,
};

export async function sentOff(lectern: Lectern, id: string): Promise<string[]> {
  const reply = await lectern.send(id, 'What happened on page 3?');
  if (!reply.success) return whatLeft(reply.error.egress ?? []);
  return whatLeft(reply.egress);
}

export async function spent(lectern: Lectern, id: string): Promise<string> {
  await lectern.send(id, 'Summarise chapter one', { budget: { maxTokens: 4_000, maxCostUsd: 0.05 } });
  const totals: UsageTotals = await lectern.usage(id);
  if (totals.turns > 100) await lectern.deleteAllConversations();
  const budget: Budget = { maxTokens: totals.inputTokens + totals.outputTokens + 1_000 };
  return `${totals.turns} turns, ${totals.costUsd ?? 'unknown'} USD, next limit ${budget.maxTokens}`;
}

export async function reading(lectern: Lectern, text: string): Promise<string> {
  const seen: IngestProgress[] = [];
  const controller = new AbortController();
  const book: Book = await lectern.addBook(
    { title: 'The Man Who Was Thursday', author: 'G. K. Chesterton', text },
    { onProgress: (p) => seen.push(p), signal: controller.signal },
  );
  await lectern.setCurrentPage(book.id, 12);
  const shown: BookPage = await lectern.page(book.id, 12);
  const heading: string = `${shown.number}: ${shown.chapter ?? ''} ${shown.text.slice(0, 40)}`;
  console.log(heading);
  const hits: SearchResult[] = await lectern.search('Who is Sunday?', { bookIds: [book.id], k: 5, maxPage: 12 });
  const mode: SearchMode = book.dimensions > 0 ? 'hybrid' : 'lexical';
  const ranked: SearchResult[] = await lectern.search('Who is Sunday?', { maxPage: 12, mode });
  const lexical = await lectern.search('Syme', { mode: 'lexical' });
  const source: 'none' | 'building' | 'built' | 'snapshot' = await lectern.indexSource(book.id);
  const conversation = await lectern.createConversation({ title: 'Reading', bookId: book.id });
  for await (const event of lectern.stream(conversation.id, 'Who is Sunday?')) {
    if (event.type === 'toolResult' && event.details) console.log(event.details);
  }
  const all: Book[] = await lectern.books();
  const bundle: Uint8Array = await lectern.exportBook(book.id);
  await lectern.deleteBook(book.id);
  const shipped: Book = await lectern.importBook(bundle.buffer as ArrayBuffer);
  await lectern.deleteBook(shipped.id);
  return `${seen.length} ${hits.length} ${ranked.length} ${lexical.length} ${source} ${all.length}`;
}

export const withBooks: LecternOptions = {
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  embedder: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', batchSize: 32 },
  retrieval: { strategy: 'alwaysRetrieve', chunkChars: 600, overlapChars: 100, pageChars: 1800, indexMinChunks: 4096 },
  onEvent: (event) => {
    if (event.type === 'ingestProgress') console.log(event.phase, event.done, event.total);
  },
};

export const lexicalOnly: LecternOptions = { provider: withBooks.provider, embedder: { kind: 'none' } };
export const hashedVectors: LecternOptions = { provider: withBooks.provider, embedder: { kind: 'hashed', dimensions: 512 } };

export const inThePage: LecternOptions = { provider: withBooks.provider, worker: false };
export const workerElsewhere: LecternOptions = {
  provider: withBooks.provider,
  workerUrl: new URL('/assets/lectern_worker.js', 'https://example.org'),
};

export const customEmbedder: LecternOptions = {
  provider: withBooks.provider,
  embedder: { kind: 'custom', model: 'all-MiniLM-L6-v2', embed: async (texts) => texts.map(() => new Float32Array(384)) },
};

export const offlineEmbedder: LecternOptions = {
  provider: withBooks.provider,
  embedder: { kind: 'minilm', modelUrl: '/models/model.safetensors', vocabUrl: '/models/vocab.txt', cache: true },
  onEvent: (event) => {
    if (event.type === 'ingestProgress' && event.phase === 'loading') console.log(`${event.done} of ${event.total} bytes`);
  },
};

export const withApprovals: LecternOptions = {
  dbName: 'docs',
  provider: layered.provider,
  approvals: {
    default: 'auto',
    tools: {
      delete_document: 'deny',
      write_document: 'ask',
      file: (args, ctx) => (ctx.toolName === 'file' && args.mode === 'read' ? 'auto' : 'ask'),
    },
    ttlMs: 3_600_000,
  },
};

export async function approvals(lectern: Lectern, id: string): Promise<string> {
  let outcome: SendOutcome = await lectern.send(id, 'Rename the draft to final.md');
  while (outcome.status === 'awaitingApproval') {
    const decisions: ApprovalDecision[] = outcome.pending.map((call) =>
      call.toolName === 'write_document'
        ? { callId: call.callId, decision: 'edit', arguments: { ...call.arguments, path: 'final-v2.md' } }
        : { callId: call.callId, decision: 'reject', reason: 'not now' },
    );
    outcome = await lectern.resolveApprovals(outcome.turnId, decisions, { signal: new AbortController().signal });
  }
  const waiting: PendingApproval[] = await lectern.pendingApprovals(id);
  for (const turn of waiting) await lectern.cancelPending(turn.turnId);
  const records: ToolCallRecord[] = await lectern.toolCalls(id);
  const paths = records.map((r) => String(r.arguments?.path ?? r.argumentsText) + (r.resultText ?? ''));
  return `${outcome.text} ${records.map((r) => `${r.name}:${r.decision}`).join(',')} ${paths.join(',')}`;
}

/** Approval controls: "always allow", a new message over a paused turn, switching at run time. */
export async function approvalControls(lectern: Lectern, id: string): Promise<string> {
  const onNewMessage: OnNewMessage = 'reject';
  lectern.setApprovals({ tools: { write_document: 'ask' }, autoApprove: false, onNewMessage });
  lectern.setAutoApprove(!lectern.autoApprove());
  const described: string[] = lectern.toolDefinitions().map((d: ToolDefinition) => `${d.name}: ${d.description}`);
  const perSend: SendApprovals = { autoApprove: true, onNewMessage: 'refuse' };
  let outcome: SendOutcome = await lectern.send(id, `Write it (${described.length} tools)`, { approvals: perSend });
  if (outcome.status === 'awaitingApproval') {
    const always: ApprovalDecision = { callId: outcome.pending[0].callId, decision: 'approveAlways' };
    outcome = await lectern.resolveApprovals(outcome.turnId, [always]);
  }
  await lectern.resetApprovals(id);
  const decisions: ToolDecision[] = (await lectern.toolCalls(id)).map((r) => r.decision);
  return `${outcome.text} ${decisions.filter((d) => d === 'approvedAlways' || d === 'movedOn').length}`;
}

/** Built-in tools and tool retries. */
export function builtinsAndRetries(lectern: Lectern): LecternOptions {
  const builtins: BuiltinTool[] = ['current_datetime', 'current_weather'];
  lectern.registerTool({
    name: 'fetch_page',
    description: 'Fetches a page (idempotent)',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    execute: async (args) => (await fetch(String(args.url))).text(),
    retries: 2,
    retryDelayMs: 500,
  });
  lectern.subscribe((event) => {
    if (event.type === 'toolResult' && event.attempts > 1) console.log(`${event.toolName} took ${event.attempts} attempts`);
  });
  const weather: WeatherOptions = { baseUrl: 'http://127.0.0.1:8787', geocodingBaseUrl: 'http://127.0.0.1:8787' };
  return { provider: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'k' }, builtinTools: builtins, weather };
}

/** <lectern-chat>: typed by tag name, properties, methods and event details. */
export async function chatWidget(lectern: Lectern): Promise<string | null> {
  const chat: LecternChat | null = document.querySelector('lectern-chat');
  if (!chat) return null;
  const mentions: ChatMention[] = [{ type: 'person', id: 'syme', label: 'Gabriel Syme' }];
  chat.lectern = lectern;
  chat.mentions = mentions;
  chat.conversationId = (await lectern.createConversation({ title: 'Widget' })).id;
  chat.settings = { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', stream: true };
  chat.models = ['llama3.2', { id: 'qwen2.5', label: 'Qwen 2.5' }];
  const offered: string[] = chat.models.map((m) => (typeof m === 'string' ? m : m.id));
  console.log(offered);
  chat.addEventListener('lectern-finish', (event) => console.log(event.detail.turnId, event.detail.usage.inputTokens));
  chat.addEventListener('lectern-settings-change', (event) => console.log(event.detail.apiKey.length));
  chat.addEventListener('lectern-send', (event) => event.detail.text.startsWith('/') && event.preventDefault());
  chat.addEventListener('lectern-send', (event) => {
    event.detail.options.maxContextTokens = 200;
  });
  const approval: LecternChatEventMap['lectern-approval']['detail'] = { conversationId: '', turnId: '', calls: [] };
  await chat.ready;
  const sent: boolean = await chat.send('Hello');
  chat.stop();
  await chat.clear();
  chat.focus();
  const created = document.createElement('lectern-chat');
  // @ts-expect-error: lectern must be a Lectern instance.
  created.lectern = 'not an instance';
  // Or a function that opens one: the widget loads the engine when first used.
  created.lectern = () => Lectern.open({ provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' } });
  const started: Lectern | null = created.lectern;
  return `${sent} ${approval.calls.length} ${safeHref('https://example.org') ?? ''} ${chat instanceof LecternChat} ${started === null}`;
}

/** A widget handed an instance hears every turn's events, and retries a failed turn. */
export async function subscribeAndRetry(lectern: Lectern, id: string): Promise<string> {
  let text = '';
  const unsubscribe: () => void = lectern.subscribe((event) => {
    if (event.type === 'textDelta') text += event.text;
  });
  const outcome: SendOutcome = await lectern.retry(id, { signal: new AbortController().signal });
  unsubscribe();
  return outcome.status === 'completed' ? outcome.text : text;
}

export async function headless(lectern: Lectern): Promise<string> {
  const run: RunRecord = await lectern.runHeadless({ instruction: 'Summarise the inbox', tools: ['search'], maxIterations: 4, timeoutMs: 60_000 });
  const again: RunRecord = await lectern.run(run.runId);
  if (run.status === 'proposed') await lectern.reviewRun(run.runId, 'accept', 'checked by hand');
  const all: RunRecord[] = await lectern.runs();
  return run.status === 'failed' ? `${run.error?.name}: ${run.error?.message}` : `${again.text} (${all.length} runs, ${run.log.length} messages)`;
}

export function approvalError(error: unknown): string {
  const e = error as LecternError;
  switch (e.name) {
    case 'ApprovalPendingError':
      return `resolve ${e.turnId} first`;
    case 'AlreadyResolvedError':
      return `${e.turnId} is ${e.state}`;
    case 'ApprovalExpiredError':
      return `expired at ${e.expiredAt}`;
    case 'CallNotPendingError':
      return `${e.callId} is not pending`;
    case 'InvalidArgumentsError':
      return `${e.tool}: ${e.message}`;
    default:
      return e.message;
  }
}

export const guarded: LecternOptions = {
  dbName: 'library',
  blockedTimeoutMs: 2000,
  provider: layered.provider,
  onEvent: (event) => {
    if (event.type === 'storageClosed') {
      const closed: StorageClosedEvent = event;
      console.log(`${closed.dbName} closed for version ${closed.newVersion ?? 'deleted'}; reload`);
    } else if (event.type === 'ingestFailed') {
      const failed: IngestFailedEvent = event;
      console.warn(`book ${failed.bookId} is searched lexically: ${failed.name}: ${failed.message}`);
    } else if (event.type === 'warning' && event.code === 'webLocksUnavailable') {
      const warning: InstanceWarningEvent = event;
      console.warn(`${warning.code}: ${warning.message}`);
    }
  },
};

export async function storage(lectern: Lectern, text: string): Promise<string> {
  const persistent: boolean = await lectern.persist();
  const { usage, quota, persisted }: StorageUsage = await lectern.storageEstimate();
  try {
    await lectern.addBook({ title: 'Big', text });
  } catch (error) {
    const e = error as LecternError;
    const reason: StorageReason | undefined = e.name === 'StorageError' ? e.reason : undefined;
    if (reason === 'quota') return `full: ${usage} of ${quota} bytes (${persistent || persisted ? 'persistent' : 'evictable'})`;
    throw error;
  }
  return 'stored';
}

// @ts-expect-error: storage reasons are a closed set.
export const badReason: StorageReason = 'disk';
// @ts-expect-error: an edit needs its arguments.
export const editWithoutArguments: ApprovalDecision = { callId: 'c', decision: 'edit' };
// @ts-expect-error: policies are a closed set.
export const badPolicy: LecternOptions = { provider: layered.provider, approvals: { default: 'maybe' } };
// @ts-expect-error: a book has exactly one source.
export const twoSources: Parameters<Lectern['addBook']>[0] = { title: 'x', text: 'a', pages: ['b'] };
// @ts-expect-error: context strategies are a closed set.
export const badContext: LecternOptions = { provider: layered.provider, context: { strategy: 'everything' } };
// @ts-expect-error: a custom provider needs its function.
export const customWithoutCall: LecternOptions = { provider: { kind: 'custom' } };
// @ts-expect-error: the provider is required.
export const missingProvider: LecternOptions = { dbName: 'x' };
// @ts-expect-error: unknown provider kinds are rejected.
export const badKind: LecternOptions = { provider: { kind: 'smoke', baseUrl: '', model: '' } };
// @ts-expect-error: message roles are a closed set.
export const badRole: Message['role'] = 'robot';

/** A conversation out in both formats and in again; an invalid import names where it is wrong. */
export async function portability(lectern: Lectern, conversationId: string): Promise<string> {
  const exported: ConversationExport = await lectern.exportConversation(conversationId);
  const chat = await lectern.exportConversation(conversationId, { format: 'openai' });
  const firstChat: ChatMessage | undefined = Array.isArray(chat) ? chat[0] : undefined;
  if (Array.isArray(exported)) throw new Error('the default format is the Lectern bundle');
  const bundle: LecternBundle = exported;
  const waiting: PendingTurn | undefined = bundle.pendingTurns[0];
  const grants: Grant[] = bundle.grants;
  const elsewhere: ImportInput = {
    format: 'openai',
    title: 'From elsewhere',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
    ],
  };
  try {
    const copy: Conversation = await lectern.importConversation(bundle);
    const fromChat: Conversation = await lectern.importConversation(elsewhere);
    await lectern.importConversation(chat);
    return `${copy.id} ${fromChat.title} ${firstChat?.role} ${waiting?.calls.length ?? 0} ${grants.length} ${bundle.usage.turns}`;
  } catch (error) {
    const e = error as LecternError;
    if (e.name === 'ImportError') return `invalid at ${e.path}: ${e.message}`;
    throw error;
  }
}

// @ts-expect-error: export formats are a closed set.
export const badFormat: ExportOptions = { format: 'yaml' };
// @ts-expect-error: only text parts are imported.
export const imagePart: ImportInput = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }];

/** After a panic every call rejects with an `InternalError`; the page should offer a reload. */
export function internalError(error: unknown): string | null {
  const e = error as LecternError;
  return e.name === 'InternalError' ? `Reload the page (${e.panic})` : null;
}

export async function structuredWeather(lectern: Lectern, id: string): Promise<string> {
  const responseSchema: ResponseSchema = {
    name: 'city_weather',
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, temperatureC: { type: 'number' } },
      required: ['city', 'temperatureC'],
    },
  };
  try {
    const outcome: SendOutcome = await lectern.send(id, 'Weather in Tromsø?', { responseSchema });
    if (outcome.status !== 'completed') return 'no answer yet';
    const weather = outcome.data as { city: string; temperatureC: number };
    for await (const event of lectern.stream(id, 'And in Oslo?', { responseSchema, maxOutputTokens: 200 })) {
      if (event.type === 'finish' && event.data !== undefined) return `${weather.city}, then ${JSON.stringify(event.data)}`;
    }
    return `${weather.city}: ${weather.temperatureC} °C`;
  } catch (error) {
    const e = error as LecternError;
    if (e.name === 'StructuredOutputError') return `off the schema (${e.validationError ?? ''}): ${e.text ?? ''}`;
    throw error;
  }
}

/** lectern/sync: a conversation written on one device, read in every device's order. */
export async function syncedConversation(token: string): Promise<string[]> {
  const seen: SyncChanges[] = [];
  const sync = await SyncClient.open({ url: 'ws://127.0.0.1:1234', user: 'reader-1', token, onChange: (changes) => seen.push(changes) });
  sync.putConversation({ id: 'c1', title: 'Thursday', createdAt: Date.now() });
  sync.appendMessage({ id: 'm1', conversationId: 'c1', role: 'user', content: 'Who is Syme?', createdAt: Date.now() });
  sync.setPosition('thursday', 31);
  const page: number | undefined = sync.position('thursday')?.page;
  await sync.close();
  return [...sync.messages('c1').map((m) => `${m.seq}: ${m.content}`), `page ${page}`, `${seen.length} changes`];
}
