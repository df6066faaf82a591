// Launches Debian's Chromium through playwright-core (no browser download),
// and the demo server with it for a test file.
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { startDemo } from '../../scripts/serve.mjs';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
}

/**
 * Starts the demo server (`scripts/serve.mjs`, on a free port, with `options`)
 * and Chromium before the calling file's tests, and stops both after them.
 * Returns the handle whose `demo` and `browser` are set once they started.
 */
export function demoAndChromium(options = {}) {
  const running = { demo: null, browser: null };
  before(async () => {
    // No MiniLM unless a test asks (`minilm: dir`): its vectors would be computed behind every test.
    running.demo = await startDemo({ port: 0, minilm: null, ...options });
    running.browser = await launchChromium();
  });
  after(async () => {
    await running.browser?.close();
    await running.demo?.close();
  });
  return running;
}
