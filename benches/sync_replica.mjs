// Issue 50: the shipped sync module (pkg/lectern_sync_bg.wasm, lectern/sync's SyncReplica) in
// headless Chromium on the user's document of a 1,000-message conversation (~300 characters a
// message): a remote update of one message taken (`receive`: the rules' check runs on a scratch
// copy of the whole document first), the document encoded (`snapshot`, what is kept in IndexedDB
// after a burst of changes) and opened again from it. Medians of the runs. Prints FIGURE lines.
//
//   node benches/sync_replica.mjs     (after scripts/build.sh; SKIPPED without pkg/)
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/js/browser.mjs';
import { startStatic } from '../scripts/static.mjs';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
if (!existsSync(`${root}/pkg/lectern_sync_bg.wasm`)) {
  console.log('SKIPPED: no pkg/lectern_sync_bg.wasm (run scripts/build.sh)');
  process.exit(0);
}
const site = await startStatic(root);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${site.url}tests/js/sync/page.html`);
  const figures = await page.evaluate(measure, { messages: 1000, runs: 25 });
  console.log(
    `a ${figures.messages}-message document (${(figures.snapshotBytes / 1024).toFixed(0)} KB): a one-message remote update taken in ` +
      `${figures.receiveMs.toFixed(2)} ms (median of ${figures.runs}), encoded in ${figures.snapshotMs.toFixed(2)} ms, opened in ${figures.openMs.toFixed(2)} ms`,
  );
  console.log(`FIGURE sync_replica_receive_ms chromium ${figures.receiveMs.toFixed(2)}`);
  console.log(`FIGURE sync_replica_snapshot_ms chromium ${figures.snapshotMs.toFixed(2)}`);
  console.log(`FIGURE sync_replica_open_ms chromium ${figures.openMs.toFixed(2)}`);
  console.log(`FIGURE sync_replica_doc_kb chromium ${(figures.snapshotBytes / 1024).toFixed(0)}`);
} finally {
  await browser.close();
  await site.close();
}

/** In the page: the figures of a `messages`-message document, medians of `runs`. */
async function measure({ messages, runs }) {
  const { default: init, SyncReplica } = await import('/pkg/lectern_sync.js');
  await init({ module_or_path: '/pkg/lectern_sync_bg.wasm' });
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const time = (work) => {
    const started = performance.now();
    work();
    return performance.now() - started;
  };
  const message = (i, device) => JSON.stringify({
    id: `${device}-${i}`,
    conversationId: 'c1',
    seq: 0,
    role: i % 2 ? 'assistant' : 'user',
    content: `Message ${i}: ${'Syme walked along the embankment, thinking of anarchy and of poetry. '.repeat(4)}`.slice(0, 300),
    createdAt: 1_700_000_000_000 + i,
  });
  const laptop = new SyncReplica('laptop');
  laptop.putConversation(JSON.stringify({ id: 'c1', title: 'Thursday', createdAt: 1 }));
  for (let i = 0; i < messages; i += 1) laptop.appendMessage(message(i, 'laptop'));
  while (laptop.nextFrame()) ; // no socket: nothing is sent
  let snapshot;
  const snapshotMs = median(Array.from({ length: runs }, () => time(() => (snapshot = laptop.snapshot()))));
  const openMs = median(Array.from({ length: runs }, () => time(() => new SyncReplica('phone', snapshot).free())));
  // The phone writes one message at a time; each frame is an update the laptop has not seen.
  const phone = new SyncReplica('phone', snapshot);
  phone.connected();
  while (phone.nextFrame()) ; // its greeting
  const frames = [];
  for (let i = 0; i < runs; i += 1) {
    phone.appendMessage(message(i, 'phone'));
    frames.push(phone.nextFrame());
  }
  const receiveMs = median(frames.map((frame) => time(() => laptop.receive(frame))));
  const stored = JSON.parse(laptop.messages('c1')).length;
  if (stored !== messages + runs) throw new Error(`the laptop holds ${stored} messages, not ${messages + runs}`);
  return { messages, runs, receiveMs, snapshotMs, openMs, snapshotBytes: snapshot.length };
}
