// The real sync server (scripts/sync-server.mjs: y-websocket's server, a room per user, its
// LevelDB store in a folder) for the sync tests, started on 127.0.0.1 with the demo's token route.
import { before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../browser.mjs';
import { startStatic } from '../../../scripts/static.mjs';

/** The repository's root. */
export const root = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

/** The skip reason when the server's packages are not installed, else false. */
export const skip = existsSync(join(root, 'node_modules/@y/websocket-server')) ? false : 'SKIPPED: no @y/websocket-server (npm ci)';

/** A port nobody listens on now. */
export const freePort = () => new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

/** The sync server on `port` with its documents in `data`, once it listens. */
export function startSyncServer(port, data) {
  const child = spawn(process.execPath, [join(root, 'scripts/sync-server.mjs'), '--port', String(port), '--demo', '--data', data], {
    env: { ...process.env, SYNC_SECRET: 'a test secret' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('listening on')) resolve({ stop: () => new Promise((r) => { child.once('exit', r); child.kill(); }) });
    });
    child.once('exit', (code) => reject(new Error(`the sync server exited (${code})`)));
  });
}

/** A token the server's demo route issues for `user`. */
export async function demoToken(port, user) {
  const response = await fetch(`http://127.0.0.1:${port}/demo/token`, { method: 'POST', body: JSON.stringify({ user }) });
  return (await response.json()).token;
}

/**
 * Before the calling file's tests: the sync server (its documents in a fresh folder), the
 * repository served statically, the browser, and a demo token for `user`; after them, all stopped.
 * Returns the state they fill in: `{ port, token, server, site, browser, data }`.
 */
export function syncServerAndBrowser(user) {
  const state = {};
  before(async () => {
    if (skip) return;
    state.data = mkdtempSync(join(tmpdir(), 'lectern-sync-'));
    state.port = await freePort();
    state.server = await startSyncServer(state.port, state.data);
    state.site = await startStatic(root);
    state.browser = await launchChromium();
    state.token = await demoToken(state.port, user);
  });
  after(async () => {
    await state.browser?.close();
    await state.site?.close();
    await state.server?.stop();
    if (state.data) rmSync(state.data, { recursive: true, force: true });
  });
  return state;
}
