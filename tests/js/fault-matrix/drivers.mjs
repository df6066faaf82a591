// How a row drives the page. Each driver scripts the mock, runs the turn(s)
// through the public API and returns `{ conversationId, userTexts, outcomes,
// notes? }`, outcomes being settled calls: `{ value }` or `{ error }`.

export const FIRST = 'Tell me about the first page.';
export const LATER = 'And now?';

async function openTab(run, options) {
  const tab = await run.tab();
  await tab.call('open', 'a', run.options(options));
  return tab;
}

/** One `send` in one tab. */
export async function sendOnce(run, row) {
  await run.script(row.script);
  const tab = await openTab(run, row.options);
  const conversationId = await tab.call('createConversation', 'a');
  const outcome = await tab.call('send', 'a', conversationId, FIRST);
  return { conversationId, userTexts: [FIRST], outcomes: [outcome] };
}

/**
 * A tool step whose write does not fit the origin's quota, then a `send` with room again.
 * The quota is lowered (through the DevTools protocol) in a browser context of its own
 * before anything is stored there: in an origin that had stored data already, Chromium
 * (156) reported the lowered quota but let IndexedDB writes past it.
 */
export async function quotaDuringStep(run, row) {
  await run.script(row.script);
  await run.useOwnContext();
  const tab = await run.tab();
  const cdp = await tab.page.context().newCDPSession(tab.page);
  const origin = new URL(run.pageUrl).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1_000_000 });
  await tab.call('open', 'a', run.options(row.options));
  const conversationId = await tab.call('createConversation', 'a');
  let outcome;
  try {
    outcome = await tab.call('send', 'a', conversationId, FIRST);
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  }
  const later = await tab.call('send', 'a', conversationId, LATER);
  return { conversationId, userTexts: [FIRST, LATER], outcomes: [outcome, later] };
}

/** The page closes while the answer streams in; a new page opens the database and sends again. */
export async function pageClosedMidTurn(run, row) {
  await run.script(row.script);
  const first = await openTab(run, row.options);
  const conversationId = await first.call('createConversation', 'a');
  await first.call('startSend', 'a', conversationId, FIRST);
  await first.page.waitForFunction(() => window.harness.sawTextDelta('a'), null, { timeout: 10000 });
  await first.page.close();
  const second = await openTab(run, row.options);
  const later = await second.call('send', 'a', conversationId, LATER);
  return { conversationId, userTexts: [FIRST, LATER], outcomes: [later], notes: ['page closed at the first text delta'] };
}

/** `close()` while the answer streams in, then the database reopened and a later `send`. */
export async function databaseClosedMidStream(run, row) {
  await run.script(row.script);
  const tab = await openTab(run, row.options);
  const conversationId = await tab.call('createConversation', 'a');
  const outcome = await tab.call('sendClosingMidStream', 'a', conversationId, FIRST);
  await tab.call('open', 'b', run.options(row.options));
  const later = await tab.call('send', 'b', conversationId, LATER);
  return { conversationId, userTexts: [FIRST, LATER], outcomes: [outcome, later] };
}

/** Two tabs send to one conversation at the same moment. */
export async function twoTabsOneConversation(run, row) {
  await run.script(row.script);
  const [a, b] = [await openTab(run, row.options), await openTab(run, row.options)];
  const conversationId = await a.call('createConversation', 'a');
  const texts = ['Sent from tab A.', 'Sent from tab B.'];
  const outcomes = await Promise.all([a.call('send', 'a', conversationId, texts[0]), b.call('send', 'a', conversationId, texts[1])]);
  return { conversationId, userTexts: texts, outcomes };
}

/** One tab's turn pauses for approval; two tabs approve it at the same moment. */
export async function twoTabsOneApproval(run, row) {
  await run.script(row.script);
  const [a, b] = [await openTab(run, row.options), await openTab(run, row.options)];
  const conversationId = await a.call('createConversation', 'a');
  const paused = await a.call('send', 'a', conversationId, FIRST);
  const turnId = paused.value?.turnId;
  const approve = (paused.value?.pending ?? []).map(({ callId }) => ({ callId, decision: 'approve' }));
  const resolved = await Promise.all([a.call('resolveApprovals', 'a', turnId, approve), b.call('resolveApprovals', 'a', turnId, approve)]);
  return { conversationId, userTexts: [FIRST], outcomes: [paused, ...resolved] };
}
