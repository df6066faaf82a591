// www/chat.html with the model in the page (Lectern's own decoder, SmolLM2-135M-Instruct) when the
// server offers one (scripts/fetch-smollm2.sh): the chat answers with no model server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startDemo } from '../../scripts/serve.mjs';
import { fetched } from './local/fixtures.mjs';
import { launchChromium } from './browser.mjs';
import { askAndWait, chatOf, screenshot } from './chat-support.mjs';

test('the chat answers with the model in the page when the server offers one', { timeout: 300000 }, async (t) => {
  const { value: model, skip } = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
  if (!model || !existsSync('pkg/lectern_local_bg.wasm')) {
    t.skip(model ? 'SKIPPED: no pkg/lectern_local_bg.wasm (bash scripts/build.sh)' : skip);
    return;
  }
  const demo = await startDemo({ port: 0, chunkDelayMs: 0, localModel: model });
  const browser = await launchChromium();
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(`${demo.url}chat.html`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
    await page.click('#use-local');
    await page.waitForFunction(() => /is ready, in this page/.test(document.querySelector('#model-label').textContent), null, { timeout: 120000 });
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
    await askAndWait(page, 'Say hello in five words.', 180000);
    const ui = chatOf(page);
    assert.equal(await ui.errors.count(), 0, await ui.errors.allTextContents().then(String));
    assert.ok((await ui.assistant.last().locator('.body').textContent()).trim().length > 0);
    assert.match(await ui.usage.last().textContent(), /in · .*out tokens/);
    await screenshot(page, 'chat-local-model');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await browser.close();
    await demo.close();
  }
});
