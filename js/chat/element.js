// <lectern-chat>: lifecycle, properties, methods, and the turn: send, stream, tools,
// approvals, stop, errors with Retry. The pieces it shows live in their own modules.
import { approvalCard } from './approval-card.js';
import { reviewBanner } from './review-banner.js';
import { h, prettyJson } from './dom.js';
import { friendlyError, retryable } from './errors.js';
import { MentionList } from './mentions.js';
import { KeyStore, settingsPanel } from './settings.js';
import { showSources } from './sources.js';
import { styleSheet } from './styles.js';
import { toolCard } from './tool-card.js';
import { StreamingMessage, assistantMessage, errorItem, interruptedItem, markStopped, usageLine, userMessage } from './transcript.js';
import { Usage } from './usage.js';

/** Errors of a decision the engine refused before going on: shown in the card, which stays. */
const DECISION_REFUSED = new Set(['InvalidArgumentsError', 'ConfigError', 'AlreadyResolvedError', 'ApprovalExpiredError', 'NotFoundError']);
const PROPERTIES = ['lectern', 'conversationId', 'mentions', 'settings', 'models'];

/** The most recent conversation bound to no book, so a reload shows the same chat; else a new one. */
async function latestOrNewConversation(lectern) {
  const unbound = (await lectern.conversations()).filter((c) => !c.bookId);
  const latest = unbound.reduce((a, b) => (b.createdAt > a.createdAt ? b : a), unbound[0]);
  return latest?.id ?? (await lectern.createConversation({ title: 'Chat' })).id;
}

export class LecternChat extends HTMLElement {
  static observedAttributes = ['conversation-id', 'placeholder', 'show-working-state', 'show-settings', 'key-storage'];

  #lectern = null;
  /** `() => Lectern | Promise<Lectern>`: the engine, loaded when the chat is first used. */
  #loader = null;
  #starting = null;
  #conversationId = null;
  #mentionItems = [];
  #settings = {};
  #models = [];
  /** The model picked in the settings panel, asked for each turn (`send`'s `model`) without
   * reopening the engine, until the host sets `lectern` or `settings` again. */
  #model = null;
  #unsubscribe = null;
  /** Counts the working-state panel's updates, so a slow read never shows over a later event's state. */
  #stateAsked = 0;
  #turn = null;
  #cards = new Map();
  /** Arguments of the calls shown in approval cards, by call id. */
  #asked = new Map();
  /** The last send's conversation and options (its mentions, a listener's options), given to
   * `retry` again in that conversation: they are not stored. */
  #lastSend = { conversationId: null, options: {} };
  #stepCost = undefined;
  #loaded = Promise.resolve();
  #loadedFor = null;
  #keys = new KeyStore(false);
  #ui;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styleSheet()];
    this.#ui = this.#view();
    root.append(this.#ui.frame);
  }

  #view() {
    const input = h('textarea', { id: 'input', part: 'input', rows: 2, placeholder: 'Ask something — Enter sends, Shift+Enter for a new line' });
    const mentions = new MentionList(input, () => this.#mentionItems);
    const send = h('button', { type: 'button', part: 'send', class: 'send', onclick: () => this.send(input.value) }, 'Send');
    const stop = h('button', { type: 'button', part: 'stop', class: 'stop', hidden: true, onclick: () => this.stop() }, 'Stop');
    input.addEventListener('keydown', (event) => this.#keydown(event, mentions));
    input.addEventListener('input', () => mentions.update());
    input.addEventListener('blur', () => mentions.close());
    // A lazily loaded engine starts when the chat is first used, not when it is shown.
    input.addEventListener('focus', () => this.#start().catch(() => {}));
    const settings = settingsPanel((value) => this.#saveSettings(value));
    // Shown only for a host that handles lectern-settings-change (attribute show-settings).
    settings.panel.hidden = true;
    const transcript = h('ol', { part: 'transcript', class: 'transcript', role: 'log', 'aria-label': 'Conversation' });
    const reviews = h('ul', { part: 'reviews', class: 'reviews', 'aria-label': 'Runs to review' });
    const working = h('details', { part: 'working-state', class: 'working-state', hidden: true }, h('summary', {}, 'Working state'), h('pre'));
    const total = h('span', { part: 'usage-total', class: 'total' });
    const status = h('div', { role: 'status', class: 'visually-hidden', part: 'status' });
    const approvals = this.#approvalControls();
    const frame = h('div', { class: 'frame', part: 'frame' },
      settings.panel, working, reviews, transcript,
      h('div', { part: 'composer', class: 'composer' }, h('label', { class: 'visually-hidden', for: 'input' }, 'Message'), mentions.list, input, send, stop),
      h('div', { class: 'footer' }, approvals.row, total), status);
    return { frame, input, mentions, send, stop, settings, transcript, working, total, status, approvals, reviews };
  }

  /**
   * The instance's approval controls, shown once it has tools: a switch that runs them without
   * asking (`setAutoApprove`), and a button that makes the tools always allowed in this
   * conversation ask again (`resetApprovals`).
   */
  #approvalControls() {
    const auto = h('input', {
      type: 'checkbox',
      id: 'auto-approve',
      role: 'switch',
      class: 'auto-approve',
      onchange: () => {
        this.#lectern?.setAutoApprove(auto.checked);
        auto.setAttribute('aria-checked', String(auto.checked));
        this.#announce(auto.checked ? 'Tools now run without asking' : 'Tools now ask before they run');
      },
    });
    const reset = h('button', {
      type: 'button',
      class: 'reset-approvals',
      onclick: async () => {
        if (!this.#lectern || !this.#conversationId) return;
        await this.#lectern.resetApprovals(this.#conversationId).then(
          () => this.#announce('The tools you always allowed will ask again'),
          (error) => this.#announce(`${error?.name ?? 'Error'}: ${error?.message ?? error}`),
        );
      },
    }, 'Ask again for always-allowed tools');
    const row = h('div', { part: 'approval-controls', class: 'approval-controls', hidden: true },
      h('label', { for: 'auto-approve' }, auto, ' Run tools without asking'), reset);
    return { row, auto, reset };
  }

  /** Shows the approval controls for an instance with tools, the switch as the engine has it. */
  #showApprovalControls(lectern) {
    const { row, auto } = this.#ui.approvals;
    const tools = lectern?.toolNames?.() ?? [];
    row.hidden = tools.length === 0;
    auto.checked = Boolean(lectern?.autoApprove?.());
    auto.setAttribute('aria-checked', String(auto.checked));
  }

  /** A tool's definition as registered (what it does, its schema), for an approval card. */
  #describeTool(name) {
    const definitions = this.#lectern?.toolDefinitions?.() ?? [];
    return definitions.find((d) => d.name === name);
  }

  connectedCallback() {
    for (const name of PROPERTIES) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const value = this[name];
        delete this[name];
        this[name] = value;
      }
    }
    this.#subscribe();
    this.#reload();
  }

  disconnectedCallback() {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    // A move (disconnect, then connect again at once) must not kill the running turn.
    queueMicrotask(() => {
      if (!this.isConnected) this.#turn?.controller?.abort();
    });
  }

  attributeChangedCallback(name, _old, value) {
    if (name === 'conversation-id' && value !== this.#conversationId) this.conversationId = value;
    else if (name === 'placeholder') this.#ui.input.placeholder = value ?? '';
    else if (name === 'show-working-state') this.#showWorkingState();
    else if (name === 'show-settings') this.#ui.settings.panel.hidden = value === null;
    else if (name === 'key-storage') this.#keys = new KeyStore(value === 'session');
  }

  /**
   * The `Lectern` instance the chat talks to; setting it (again, after new
   * settings) reloads. Or a function that opens one (`() => Lectern.open(…)`):
   * the chat renders at once and loads the engine when it is first used (the
   * input focused, a message sent), the first send waiting for it.
   */
  get lectern() {
    return this.#lectern;
  }
  set lectern(value) {
    if (typeof value === 'function') {
      this.#loader = value;
      this.#starting = null;
      value = null;
    } else {
      this.#loader = null;
    }
    if ((value ?? null) === this.#lectern) return;
    this.#model = null;
    this.#leaveTurn();
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#lectern = value ?? null;
    this.#loadedFor = null;
    this.#subscribe();
    this.#reload();
  }

  /** The conversation shown; without one the chat creates one when it gets its `lectern`. */
  get conversationId() {
    return this.#conversationId;
  }
  set conversationId(value) {
    const id = value ? String(value) : null;
    if (id === this.#conversationId) return;
    this.#leaveTurn();
    this.#conversationId = id;
    this.#loadedFor = null;
    this.#reload();
  }

  /** `[{ type, id, label }]` offered after `@` in the input. */
  get mentions() {
    return this.#mentionItems;
  }
  set mentions(value) {
    this.#mentionItems = Array.isArray(value) ? value : [];
  }

  /**
   * The models the settings panel offers to pick from (`['gpt-4o-mini', { id, label }]`); none:
   * the model is typed as free text.
   */
  get models() {
    return [...this.#models];
  }
  set models(value) {
    this.#models = Array.isArray(value) ? [...value] : [];
    this.#ui.settings.setModels(this.#models);
  }

  /** `{ kind, baseUrl, model, stream }` shown in the settings panel (the key is never read from here). */
  get settings() {
    return { ...this.#settings };
  }
  set settings(value) {
    const { apiKey: _ignored, ...rest } = value ?? {};
    this.#settings = rest;
    this.#model = null;
    this.#ui.settings.fill(rest, this.#keys.get());
  }

  /** Resolves once the history of the current conversation is shown. */
  get ready() {
    return this.#loaded;
  }

  /**
   * Shows the conversation afresh as stored (another device's messages, say), unless a turn of
   * this page's is on screen; resolves once it is shown.
   */
  refresh() {
    this.#followOtherTab();
    return this.#loaded;
  }

  /** Focuses the message input. */
  focus(options) {
    this.#ui.input.focus(options);
  }

  /** Starts a new conversation (on the same book, if any); the old one stays stored. */
  async clear() {
    if (!this.#lectern) return;
    this.stop();
    const current = (await this.#lectern.conversations()).find((c) => c.id === this.#conversationId);
    const created = await this.#lectern.createConversation(current?.bookId ? { bookId: current.bookId } : {});
    this.conversationId = created.id;
    await this.#loaded;
  }

  /** Aborts the running turn; what streamed stays. */
  stop() {
    this.#turn?.controller?.abort();
  }

  /** Opens the engine of a lazily loaded chat (once), showing that it starts. */
  #start() {
    if (this.#lectern || !this.#loader) return Promise.resolve(this.#lectern);
    const loader = this.#loader;
    this.#starting ??= (async () => {
      this.toggleAttribute('starting', true);
      this.#ui.send.textContent = 'Starting…';
      this.#announce('Starting the assistant');
      try {
        const lectern = await loader();
        if (this.#loader === loader) this.lectern = lectern;
        return lectern;
      } catch (error) {
        if (this.#loader === loader) this.#starting = null;
        this.#failed(error, () => this.#start());
        throw error;
      } finally {
        this.toggleAttribute('starting', false);
        this.#ui.send.textContent = 'Send';
      }
    })();
    return this.#starting;
  }

  /** Sends `text` as the user; resolves with whether a turn ran. */
  async send(text) {
    const message = String(text ?? '').trim();
    if (message && !this.#turn && !this.#lectern && this.#loader) {
      this.#ui.send.disabled = true;
      try {
        await this.#start();
      } catch {
        return false;
      } finally {
        this.#ui.send.disabled = false;
      }
    }
    if (!message || this.#turn || !this.#lectern) return false;
    await this.#loaded;
    if (this.#turn) return false; // another send started meanwhile
    const conversationId = this.#conversationId;
    // A listener may cancel the send, or add send options for this turn to `detail.options`.
    const detail = { conversationId, text: message, options: {} };
    const allowed = this.dispatchEvent(new CustomEvent('lectern-send', { detail, cancelable: true, bubbles: true, composed: true }));
    if (!allowed || !conversationId) return false;
    const mentions = this.#ui.mentions.take(message);
    this.#ui.input.value = '';
    this.#dropRetries();
    this.#append(userMessage(message));
    const { signal: _signal, mentions: _mentions, ...hosts } = detail.options;
    const picked = this.#model ? { model: this.#model } : {};
    const options = { ...picked, ...hosts, ...(mentions.length ? { mentions } : {}) };
    this.#lastSend = { conversationId, options };
    await this.#runTurn((signal) => this.#lectern.send(conversationId, message, { ...options, signal }));
    return true;
  }

  #keydown(event, mentions) {
    if (mentions.keydown(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.send(this.#ui.input.value);
    } else if (event.key === 'Escape' && this.#turn) {
      event.preventDefault();
      this.stop();
    }
  }

  #subscribe() {
    if (this.#unsubscribe || !this.#lectern || !this.isConnected) return;
    this.#unsubscribe = this.#lectern.subscribe((event) => this.#onEvent(event));
  }

  /** Shows the conversation's history, tool calls and pending approvals (once per lectern + conversation). */
  #reload() {
    if (!this.isConnected || !this.#lectern) return;
    const key = `${this.#conversationId}`;
    if (this.#loadedFor === key) return;
    this.#loadedFor = key;
    this.#loaded = this.#load().catch((error) =>
      this.#failed(error, () => {
        this.#dropRetries();
        this.#loadedFor = null;
        this.#reload();
      }),
    );
  }

  async #load() {
    const lectern = this.#lectern;
    this.#ui.transcript.setAttribute('aria-busy', 'true');
    if (!this.#conversationId) {
      this.#conversationId = await latestOrNewConversation(lectern);
      this.#loadedFor = this.#conversationId;
    }
    const id = this.#conversationId;
    this.#showApprovalControls(lectern);
    const [messages, records, pending, interrupted] = await Promise.all([
      lectern.messages(id),
      lectern.toolCalls(id),
      lectern.pendingApprovals(id),
      lectern.interruptedTurns(id),
    ]);
    if (lectern !== this.#lectern || id !== this.#conversationId) return;
    this.#cards.clear();
    this.#asked.clear();
    this.#ui.total.textContent = '';
    const recorded = new Map(records.map((r) => [r.id, r]));
    const items = [];
    for (const message of messages) {
      if (message.role === 'user') items.push(userMessage(message.content));
      else if (message.role === 'assistant') {
        if (message.content) items.push(showSources(assistantMessage(message.content, { interrupted: message.interrupted }), message, this));
        for (const call of message.toolCalls ?? []) {
          const record = recorded.get(call.id);
          if (!record || record.decision === 'pending') continue;
          const { card, update } = toolCard({ callId: call.id, toolName: call.name, arguments: record.arguments ?? record.argumentsText, costUsd: record.stepCostUsd });
          update(record);
          items.push(card);
        }
      }
    }
    for (const turn of pending) {
      for (const call of turn.calls) this.#asked.set(call.callId, call.arguments);
      items.push(this.#approvalCard(turn.turnId, turn.calls));
    }
    for (const turn of interrupted) items.push(interruptedItem(() => this.#resume(turn.turnId)));
    this.#ui.transcript.replaceChildren(...items);
    this.#ui.transcript.setAttribute('aria-busy', 'false');
    this.#scroll();
    await Promise.all([this.#showWorkingState(), this.#showTotal(), this.#showReviews()]);
  }

  /** A banner for each headless run of the conversation that waits for a person's review. */
  async #showReviews() {
    const lectern = this.#lectern;
    const id = this.#conversationId;
    if (!lectern?.runs || !id) return;
    const runs = await lectern.runs().catch(() => []);
    if (lectern !== this.#lectern || id !== this.#conversationId) return;
    const proposed = runs.filter((run) => run.conversationId === id && run.status === 'proposed');
    this.#ui.reviews.replaceChildren(...proposed.map((run) => reviewBanner(run, (decision, note) => this.#review(run, decision, note))));
  }

  async #review(run, decision, note) {
    await this.#lectern.reviewRun(run.runId, decision, note);
    this.#announce(decision === 'accept' ? 'Run accepted' : 'Run rejected');
    await this.#showReviews();
  }

  #onEvent(event) {
    if (!event || event.conversationId !== this.#conversationId) return;
    // A headless run ended (after its turn's events): a proposed one waits for a review.
    if (event.type === 'runFinished') return void this.#showReviews();
    // Another tab on the same database answered in this conversation: show the stored transcript
    // (unless this tab runs a turn of its own, whose end reloads nothing).
    if (event.remote && event.type === 'finish') return void this.#followOtherTab();
    // A tool (of this tab's turn, another tab's or a headless run) or the host set the working state.
    if (event.type === 'workingState') return void this.#showWorkingState(event.state);
    const turn = this.#turn ?? (this.#turn = { controller: null, message: null, usage: new Usage(), passive: true });
    switch (event.type) {
      case 'textDelta':
        if (!turn.message) {
          turn.message = new StreamingMessage();
          this.#append(turn.message.item);
        }
        turn.message.append(event.text);
        this.#scroll();
        break;
      case 'tokenUsage':
        turn.usage.add(event);
        this.#stepCost = event.costUsd;
        break;
      case 'toolInvocation': {
        if (turn.message?.text) turn.message.end();
        else turn.message?.remove();
        turn.message = null;
        const { card, update } = toolCard({ callId: event.callId, toolName: event.toolName, arguments: event.argumentsText, costUsd: this.#stepCost });
        this.#cards.set(event.callId, update);
        this.#append(card);
        break;
      }
      case 'toolResult': {
        // A rejected call never ran (no toolInvocation): its card comes with its result.
        if (!this.#cards.has(event.callId)) {
          const { card, update } = toolCard({ callId: event.callId, toolName: event.toolName, arguments: this.#asked.get(event.callId) ?? '' });
          this.#cards.set(event.callId, update);
          this.#append(card);
        }
        this.#cards.get(event.callId)(event);
        break;
      }
      case 'approvalRequested':
        if (turn.passive) {
          if (turn.message?.text) turn.message.end();
          else turn.message?.remove();
          this.#turn = null;
          this.#showApproval(event.turnId, event.calls, false);
        }
        break;
      case 'finish':
      case 'error':
        if (turn.passive) {
          turn.message?.end(event.type === 'finish' ? event.text : undefined);
          if (turn.message && event.type === 'finish') showSources(turn.message.item, event, this);
          this.#turn = null;
        }
        break;
    }
  }

  /** Stops the running turn of the conversation being left; it shows nothing more here. */
  #leaveTurn() {
    const turn = this.#turn;
    if (!turn) return;
    turn.left = true;
    turn.controller?.abort();
    this.#turn = null;
    this.#busy(false);
  }

  /** Runs one turn (`start(signal)` returns its promise) and shows what came of it. */
  async #runTurn(start, { refused } = {}) {
    const controller = new AbortController();
    const turn = { controller, message: null, usage: new Usage(), passive: false };
    this.#turn = turn;
    this.#busy(true);
    let outcome = null;
    let error = null;
    try {
      outcome = await start(controller.signal);
      if (outcome && outcome.success === false) error = outcome.error;
    } catch (thrown) {
      error = thrown;
    }
    if (turn.left) return;
    this.#turn = null;
    this.#busy(false);
    if (error && refused?.(error)) {
      turn.message?.remove();
      return;
    }
    this.#showTotal();
    if (error) this.#showFailure(turn, error);
    else if (outcome.status === 'awaitingApproval') this.#awaiting(turn, outcome);
    else this.#finished(turn, outcome);
    await this.#showWorkingState();
  }

  #finished(turn, outcome) {
    let item = turn.message?.item;
    if (item) turn.message.end(outcome.text);
    else this.#append((item = assistantMessage(outcome.text)));
    showSources(item, outcome, this);
    this.#append(usageLine(String(turn.usage)));
    this.#announce(outcome.sourceCheck?.grounded === false ? 'Answer complete, not found in the book' : 'Answer complete');
    this.#scroll();
    const { turnId, text, usage, sources, sourceCheck, quoted } = outcome;
    const detail = { conversationId: this.#conversationId, turnId, text, usage, sources, sourceCheck, quoted };
    this.dispatchEvent(new CustomEvent('lectern-finish', { detail, bubbles: true, composed: true }));
  }

  #awaiting(turn, outcome) {
    if (turn.message?.text) turn.message.end();
    else turn.message?.remove();
    this.#showApproval(outcome.turnId, outcome.pending, true);
  }

  #showFailure(turn, error) {
    if (error?.name === 'AbortError') {
      if (turn.message?.text) {
        turn.message.end();
        markStopped(turn.message.item);
      } else turn.message?.remove();
      this.#announce('Stopped');
      return;
    }
    if (turn.message?.text) turn.message.end();
    else turn.message?.remove();
    const item = this.#failed(error);
    // `retry` answers a trailing user message; after a tool step there is none: no Retry then.
    const id = this.#conversationId;
    this.#lectern
      ?.messages(id)
      .then((messages) => messages.at(-1)?.role !== 'user' && item.querySelector('button.retry')?.remove())
      .catch(() => {});
  }

  /** Shows a failure with Retry (`again`, when retrying can help) and tells the host. */
  #failed(error, again = () => this.#retry()) {
    const text = friendlyError(error, this.hasAttribute('show-settings'));
    const retry = retryable(error) && this.#conversationId ? again : null;
    const item = errorItem(text, error, retry);
    this.#append(item);
    this.#announce(text);
    this.#scroll();
    const detail = { conversationId: this.#conversationId, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } };
    this.dispatchEvent(new CustomEvent('lectern-error', { detail, bubbles: true, composed: true }));
    return item;
  }

  async #retry() {
    if (this.#turn || !this.#lectern) return;
    const id = this.#conversationId;
    this.#dropRetries();
    const options = this.#lastSend.conversationId === id ? this.#lastSend.options : {};
    await this.#runTurn((signal) => this.#lectern.retry(id, { ...options, signal }));
  }

  /** Goes on with a turn a closed page cut off. */
  async #resume(turnId) {
    if (this.#turn || !this.#lectern) return;
    this.#dropRetries();
    await this.#runTurn((signal) => this.#lectern.resumeTurn(turnId, { signal }));
  }

  /** Removes the Retry and Continue offers: a new turn makes them moot (a new message closes a cut-off turn). */
  #dropRetries() {
    const offers = this.#ui.transcript.querySelectorAll('[data-role="error"], [data-role="interrupted"]');
    for (const item of offers) item.remove();
  }

  #approvalCard(turnId, calls) {
    const card = approvalCard({ turnId, calls }, (decision) => this.#decide(card, turnId, decision), (name) => this.#describeTool(name));
    return card;
  }

  /** (Re)shows the card of a paused turn; `byUser`: the user's own turn, so the card takes focus. */
  #showApproval(turnId, calls, byUser) {
    for (const old of this.#ui.transcript.querySelectorAll('.approval-card')) if (old.dataset.turnId === turnId) old.remove();
    for (const call of calls) this.#asked.set(call.callId, call.arguments);
    const card = this.#approvalCard(turnId, calls);
    this.#showApprovalControls(this.#lectern);
    this.#append(card);
    this.#scroll();
    this.#announce(`Needs your approval: ${calls.map((c) => c.toolName).join(', ')}`);
    this.dispatchEvent(new CustomEvent('lectern-approval', { detail: { conversationId: this.#conversationId, turnId, calls }, bubbles: true, composed: true }));
    if (byUser) card.focus();
  }

  /** Shows the conversation as stored, when no turn of this tab's is on screen. */
  #followOtherTab() {
    if (this.#turn) return;
    this.#loadedFor = null;
    this.#reload();
  }

  async #decide(card, turnId, decision) {
    if (this.#turn) throw Object.assign(new Error('wait for the running answer to end'), { name: 'Busy' });
    let refusal = null;
    await this.#runTurn((signal) => this.#lectern.resolveApprovals(turnId, [decision], { signal }), {
      refused: (error) => DECISION_REFUSED.has(error?.name) && (refusal = error),
    });
    if (refusal) throw refusal;
    card.remove();
    if (!this.#ui.transcript.querySelector('.approval-card')) this.focus();
  }

  /** The working-state panel: `known` (a `workingState` event's state), else the state read from the store. */
  async #showWorkingState(known) {
    const box = this.#ui.working;
    if (!this.hasAttribute('show-working-state') || !this.#lectern || !this.#conversationId) {
      box.hidden = true;
      return;
    }
    const asked = ++this.#stateAsked;
    const state = known !== undefined ? known : await this.#lectern.workingState(this.#conversationId).catch(() => null);
    if (asked !== this.#stateAsked) return; // a later change (an event) was shown meanwhile
    box.hidden = state == null;
    box.querySelector('pre').textContent = state == null ? '' : prettyJson(state);
  }

  /** The conversation's stored usage totals (every turn, failed ones included), under the transcript. */
  async #showTotal() {
    const lectern = this.#lectern;
    const id = this.#conversationId;
    if (!lectern || !id) return;
    const totals = await lectern.usage(id).catch(() => null);
    if (lectern !== this.#lectern || id !== this.#conversationId) return;
    const usage = totals && Usage.of(totals);
    this.#ui.total.textContent = usage && (usage.inputTokens || usage.outputTokens) ? `This conversation: ${usage}` : '';
  }

  #saveSettings(value) {
    this.#keys.set(value.apiKey);
    const { apiKey: _key, ...rest } = value;
    this.#settings = rest;
    this.#model = value.model || null;
    this.dispatchEvent(new CustomEvent('lectern-settings-change', { detail: { ...value }, bubbles: true, composed: true }));
  }

  #busy(on) {
    this.#ui.send.disabled = on;
    this.#ui.stop.hidden = !on;
    this.toggleAttribute('busy', on);
  }

  #append(item) {
    this.#ui.transcript.append(item);
  }

  #scroll() {
    const log = this.#ui.transcript;
    log.scrollTop = log.scrollHeight;
  }

  /** One short line for screen readers (never token text). */
  #announce(line) {
    this.#ui.status.textContent = line;
  }
}
