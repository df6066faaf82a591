// One row of the fault matrix in progress: its own mock session, database and
// run counter, the tabs it opened, and what it observed.

let serial = 0;

/** A page of the harness; `call(fn, ...args)` runs `harness[fn](...args)` in it. */
export class Tab {
  constructor(page) {
    this.page = page;
  }

  static async open(context, url) {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.harness, null, { timeout: 15000 });
    return new Tab(page);
  }

  call(fn, ...args) {
    return this.page.evaluate(([fn, args]) => window.harness[fn](...args), [fn, args]);
  }
}

/** The scripted tool call `id` of `name`; its arguments carry the id as `tag`, which the tool counts runs by. */
export const call = (name, id, args = { tag: id }) => ({ toolCalls: [{ id, name, arguments: args }] });

export class RowRun {
  /** `context`: the browser context all tabs share (one origin, one IndexedDB). */
  constructor({ context, mockUrl, pageUrl, name }) {
    const id = `${name.replace(/\W+/g, '-').slice(0, 40)}-${Date.now()}-${serial++}`;
    Object.assign(this, { context, mockUrl, pageUrl, session: id, dbName: `matrix-${id}`, counter: `runs-${id}` });
    this.tabs = [];
  }

  /** From now on, tabs open in a new browser context: an origin with storage of its own. */
  async useOwnContext() {
    this.context = await this.context.browser().newContext();
    this.ownContext = this.context;
  }

  /** A new tab with the harness loaded. */
  async tab() {
    const tab = await Tab.open(this.context, this.pageUrl);
    this.tabs.push(tab);
    return tab;
  }

  /** Queues scripted turns on this row's mock session. */
  async script(turns) {
    const res = await fetch(`${this.mockUrl}/__mock/${this.session}/script`, { method: 'POST', body: JSON.stringify({ turns }) });
    if (!res.ok) throw new Error(`mock script: HTTP ${res.status}`);
  }

  /** Every model request the mock session got. */
  async requests() {
    return (await fetch(`${this.mockUrl}/__mock/${this.session}/requests`)).json();
  }

  /** `Lectern.open` options for this row's database and session, plus `extra`. */
  options({ kind = 'openai', provider = {}, ...extra } = {}) {
    const model = kind === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
    const base = { kind, baseUrl: `${this.mockUrl}/s/${this.session}/v1`, model, apiKey: 'k', stream: true };
    const retry = { initialDelayMs: 20, maxDelayMs: 40 };
    return { dbName: this.dbName, counter: this.counter, provider: { ...base, retry, ...provider }, ...extra };
  }

  /** What a freshly opened database holds for the conversation, and the tools' run counts. */
  async stored(conversationId) {
    const tab = await this.tab();
    const { messages, toolCalls } = await tab.call('stored', this.dbName, conversationId);
    return { messages, toolCalls, runs: await tab.call('runs', this.counter) };
  }

  async close() {
    await Promise.all(this.tabs.map((t) => t.page.close().catch(() => {})));
    await this.ownContext?.close();
  }
}
