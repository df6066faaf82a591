// The package as its users get it: the `npm pack` tarball, installed into a
// fresh app (tests/js/consumer/app/) and used four ways: built by Vite (lectern/local too: its
// Worker and threaded build found through the bundle, on a cross-origin isolated page) and
// served from dist/, served by Vite's dev server, loaded by a plain page
// through an import map, and type-checked by `tsc --strict` under
// moduleResolution "bundler" and "node16". Each page runs one streamed turn
// against the mock model server and adds a book in Lectern's worker, in
// headless Chromium.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startMockServer } from '../mock-server/server.mjs';
import { startStatic } from '../../scripts/static.mjs';
import { ENGINE, launchChromium } from './browser.mjs';
import { ISOLATION_HEADERS } from './local/isolated-server.mjs';
import { installConsumerApp, packRepository, typeCheck } from './consumer/install.mjs';

const state = { pack: null, app: null, mock: null, browser: null };

before(async () => {
  state.pack = packRepository();
  state.app = installConsumerApp(state.pack.tarball);
  state.mock = await startMockServer({ port: 0, chunkDelayMs: 5 });
  state.browser = await launchChromium();
});

after(async () => {
  await state.browser?.close();
  await state.mock?.close();
  for (const dir of [state.app, state.pack && dirname(state.pack.tarball)]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the package files and nothing else, and every export target', () => {
  const files = state.pack.files;
  const allowed = /^(package\.json|README\.md|LICENSE-MIT|LICENSE-APACHE|pkg\/.+)$/;
  assert.deepEqual(files.filter((file) => !allowed.test(file)), [], 'only pkg/, the README, the licences and package.json');
  for (const file of ['pkg/lectern_bg.wasm', 'pkg/lectern_books_bg.wasm', 'pkg/lectern_worker.js', 'pkg/chat/index.js', 'LICENSE-MIT']) {
    assert.ok(files.includes(file), file);
  }
  assert.ok(files.some((file) => file.startsWith('pkg/snippets/') && file.endsWith('worker_host.js')));
  const installed = join(state.app, 'node_modules/lectern');
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  for (const [subpath, entry] of Object.entries(manifest.exports)) {
    const targets = typeof entry === 'string' ? { default: entry } : entry;
    if (typeof entry === 'object') assert.equal(Object.keys(entry)[0], 'types', `${subpath}: types comes first`);
    for (const target of Object.values(targets)) assert.ok(existsSync(join(installed, target)), `${subpath} → ${target}`);
  }
  assert.deepEqual(manifest.sideEffects, ['./pkg/chat/index.js'], 'the file defining <lectern-chat> is kept by bundlers');
});

test('tsc --strict accepts a consumer file under moduleResolution "bundler"', () => {
  assert.equal(typeCheck(state.app, 'bundler'), '');
});

test('tsc --strict accepts a consumer file under moduleResolution "node16"', () => {
  assert.equal(typeCheck(state.app, 'node16'), '');
});

const MODEL_URL_IN_README = 'http://127.0.0.1:11434/v1';

/** A page holding the README's first HTML example as it stands, its model server swapped for the mock. */
function readmeSnippetPage() {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const snippet = readme.match(/```html\n([\s\S]*?)```/)[1];
  assert.ok(snippet.includes(MODEL_URL_IN_README), 'the example names the model server this test replaces');
  assert.ok(snippet.trim().split('\n').length < 10, 'the first example stays under ten lines');
  const page = snippet.replace(MODEL_URL_IN_README, `${state.mock.url}/v1`);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8" /><link rel="icon" href="data:," /></head><body>\n${page}</body></html>\n`;
}

/** The README's example, built by Vite: the widget renders without the engine, and a question typed into it gets the streamed answer. */
async function chatThroughReadmeSnippet(site) {
  const context = await state.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${site.url}readme.html`);
  const input = page.locator('lectern-chat textarea');
  await input.waitFor();
  // Without show-settings no host reopens Lectern on new settings, so the panel is not offered.
  assert.equal(await page.locator('lectern-chat [part~="settings"]').isVisible(), false, 'no settings panel');
  await input.fill('Hello from the README');
  await input.press('Enter');
  const answer = page.locator('lectern-chat [part~="message-assistant"]', { hasText: 'Mock reply to: Hello from the README' });
  await answer.waitFor();
  // The turn is stored once the widget is no longer busy (the text shows while it streams).
  await page.locator('lectern-chat:not([busy])').waitFor();
  // No conversation named: after a reload the chat shows the same one, once used (its engine loads then).
  await page.reload();
  await input.waitFor();
  assert.equal(await answer.count(), 0, 'no engine, no history, before the chat is used');
  await input.focus();
  await answer.waitFor();
  assert.deepEqual(problems, []);
  await context.close();
}

/** Opens `path` of `site` with the mock model; resolves with the app's result, the workers and the requests seen. */
async function drive(site, path) {
  const context = await state.browser.newContext();
  const page = await context.newPage();
  const workers = [];
  const requests = [];
  const problems = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  context.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  await page.goto(`${site.url}${path}?model=${encodeURIComponent(`${state.mock.url}/v1`)}`);
  await page.waitForFunction(() => window.consumerResult !== undefined, null, { timeout: 60000 });
  const result = await page.evaluate(() => window.consumerResult);
  await context.close();
  return { result, workers, requests, problems };
}

function assertTurnAndBook({ result, problems }) {
  assert.equal(result.error, undefined);
  assert.deepEqual(problems, []);
  assert.equal(result.reply, 'Mock reply to: Hello from a consumer');
  assert.ok(result.deltas.length > 1, `streamed in ${result.deltas.length} deltas`);
  assert.ok(result.finished);
  assert.ok(result.chunkCount >= 1 && result.hits >= 1, JSON.stringify(result));
  assert.ok(result.element, '<lectern-chat> is defined by the side-effect import');
}

test('vite build: no warning, the worker and both wasm files emitted, and the built app streams a turn and ingests in the worker', async () => {
  const { build, createLogger } = await import('vite');
  const logger = createLogger('warn');
  const warnings = [];
  logger.warn = (message) => warnings.push(message);
  logger.warnOnce = (message) => warnings.push(message);
  writeFileSync(join(state.app, 'readme.html'), readmeSnippetPage());
  // Two pages: Vite builds index.html alone unless told of the second.
  const input = { index: join(state.app, 'index.html'), readme: join(state.app, 'readme.html'), local: join(state.app, 'local.html') };
  await build({ root: state.app, logLevel: 'warn', customLogger: logger, configFile: false, build: { rollupOptions: { input } } });
  assert.deepEqual(warnings, [], 'vite build warns of nothing');
  const assets = readdirSync(join(state.app, 'dist/assets'));
  const local = ['lectern_local_worker', 'lectern_local_helper', 'lectern_local_bg', 'lectern_local_threads_bg', 'lectern_local_relaxed_bg', 'lectern_local_threads_relaxed_bg'];
  for (const name of ['lectern_bg', 'lectern_books_bg', 'lectern_worker', ...local]) {
    assert.ok(assets.some((file) => file.startsWith(`${name}-`)), `${name}-*.* in dist/assets (${assets.join(', ')})`);
  }
  const site = await startStatic(join(state.app, 'dist'));
  try {
    const run = await drive(site, 'index.html');
    assertTurnAndBook(run);
    assert.ok(run.workers.some((url) => /\/assets\/lectern_worker-[\w-]+\.js$/.test(url)), `the worker ran: ${run.workers}`);
    assert.ok(run.requests.some((url) => /lectern_books_bg-[\w-]+\.wasm$/.test(url)), 'the books module loaded its wasm');
    const booksChunk = run.requests.filter((url) => /\/assets\/lectern_books-[\w-]+\.js$/.test(url));
    assert.ok(booksChunk.length >= 1, `the page loaded the books module's chunk: ${run.requests}`);
    assert.ok(!run.requests.some((url) => url.includes('node_modules')), 'everything comes from dist/');
    await chatThroughReadmeSnippet(site);
  } finally {
    await site.close();
  }
  await localModelBuilt(join(state.app, 'dist'));
});

/**
 * lectern/local built by Vite, served cross-origin isolated: its bundled Worker starts, finds and
 * instantiates the threaded build (no `threads` note says it fell back; in Chromium, its
 * relaxed-SIMD build), then reports the missing model file's 404.
 */
async function localModelBuilt(dist) {
  const site = await startStatic(dist, ISOLATION_HEADERS);
  try {
    const run = await drive(site, 'local.html');
    assert.equal(run.result.error, undefined, JSON.stringify(run.result));
    assert.equal(run.result.isolated, true);
    assert.match(run.result.failure, /missing\.gguf answered 404/);
    assert.deepEqual(run.result.notes, [], 'the threaded build was found and instantiated');
    assert.ok(run.workers.some((url) => /\/assets\/lectern_local_worker-[\w-]+\.js$/.test(url)), `the worker ran: ${run.workers}`);
    const threaded = run.requests.filter((url) => /lectern_local_threads(_relaxed)?_bg-[\w-]+\.wasm$/.test(url));
    assert.ok(threaded.length > 0, `the threaded wasm loaded: ${run.requests}`);
    // Chromium has relaxed SIMD: the Worker takes that build (the URL Vite rewrote for it).
    if (ENGINE === 'chromium') assert.ok(threaded.every((url) => url.includes('_relaxed_bg-')), `the relaxed-SIMD build: ${threaded}`);
    assert.deepEqual(run.problems.filter((p) => !/404/.test(p)), []);
  } finally {
    await site.close();
  }
}

test('a plain page with an import map and no bundler streams a turn and ingests in the worker', async () => {
  const site = await startStatic(state.app);
  try {
    const run = await drive(site, 'plain.html');
    assertTurnAndBook(run);
    assert.ok(run.workers.some((url) => url.endsWith('/node_modules/lectern/pkg/lectern_worker.js')), `the worker ran: ${run.workers}`);
    assert.ok(run.requests.some((url) => url.endsWith('/node_modules/lectern/pkg/lectern_books_bg.wasm')), 'the books wasm loaded');
  } finally {
    await site.close();
  }
});

test('the Vite dev server serves the same app, worker included, with no configuration', async () => {
  const { createServer } = await import('vite');
  const server = await createServer({ root: state.app, configFile: false, logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  try {
    const run = await drive({ url: server.resolvedUrls.local[0] }, 'index.html');
    assertTurnAndBook(run);
    assert.ok(run.workers.some((url) => url.includes('/node_modules/lectern/pkg/lectern_worker.js')), `the worker ran: ${run.workers}`);
  } finally {
    await server.close();
  }
});
