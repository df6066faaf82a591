// Launches Debian's Chromium through playwright-core (no browser download),
// and the demo server with it for a test file. With LECTERN_BROWSER=firefox,
// Debian's Firefox ESR instead, over WebDriver BiDi (playwright-core 1.55's
// client, installed as `playwright-bidi`: 1.65's fails on Firefox ESR). With
// LECTERN_BROWSER=webkit, WebKitGTK's MiniBrowser over WebDriver classic
// (tests/js/webkit/: the part of Playwright's API the flows use).
import { after, before } from 'node:test';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { startDemo } from '../../scripts/serve.mjs';
import { launchWebKit } from './webkit/browser.mjs';

/** The engine the browser tests run in: `chromium` (the default), `firefox` or `webkit`. */
export const ENGINE = process.env.LECTERN_BROWSER ?? 'chromium';

/** Where screenshots and tables go: `.test-artifacts/`, or a folder an engine besides Chromium. */
export const ARTIFACTS = ENGINE === 'chromium' ? '.test-artifacts' : `.test-artifacts/${ENGINE}`;

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
  if (ENGINE === 'webkit') return launchWebKit();
  if (ENGINE === 'firefox') {
    const { _bidiFirefox } = createRequire(import.meta.url)('playwright-bidi');
    return _bidiFirefox.launch({
      channel: 'moz-firefox',
      executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
      headless: true,
    });
  }
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
