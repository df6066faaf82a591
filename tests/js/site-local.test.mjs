// The reading site with no configuration when the server offers an in-browser model
// (scripts/fetch-smollm2.sh): that model is the default, it loads in the page, and the chat
// answers with it — no model server. Skipped when the model or wllama is not here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { startDemo } from '../../scripts/serve.mjs';
import { launchChromium } from './browser.mjs';

test('the in-browser model is the default and answers in the chat', { timeout: 300000 }, async (t) => {
  const fetched = spawnSync('bash', ['scripts/fetch-smollm2.sh'], { encoding: 'utf8' }).stdout.trim().split('\n').pop() ?? '';
  const model = fetched.startsWith('LECTERN_SMOLLM2=') ? fetched.slice('LECTERN_SMOLLM2='.length) : null;
  if (!model || !existsSync('node_modules/@wllama/wllama/esm/wasm/wllama.wasm')) {
    t.skip(model ? 'SKIPPED: @wllama/wllama is not installed' : fetched);
    return;
  }
  const demo = await startDemo({ port: 0, localModel: model });
  const browser = await launchChromium();
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(demo.url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await page.inputValue('#model-choice'), 'local');
    assert.match(await page.textContent('#model-choice option[value="local"]'), /^In-browser model \(SmolLM2/);
    assert.deepEqual(await page.$$eval('#model-choice option', (o) => o.map((x) => x.value)), ['local', 'demo', 'mock']);
    const chat = page.locator('#chat');
    await chat.getByRole('combobox', { name: 'Message' }).fill('Say hello in five words.');
    await chat.getByRole('button', { name: 'Send' }).click();
    await page.waitForFunction(() => /is ready, in this page/.test(document.querySelector('#model-status').textContent), null, { timeout: 120000 });
    await page.waitForFunction(() => {
      const answer = document.querySelector('#chat').shadowRoot.querySelector('[data-role="assistant"]');
      return answer && answer.getAttribute('aria-busy') !== 'true' && answer.textContent.trim().length > 0;
    }, null, { timeout: 180000 });
    assert.equal(await chat.locator('[data-role="error"]').count(), 0);
    await mkdir('.test-artifacts', { recursive: true });
    await page.screenshot({ path: '.test-artifacts/site-local-model.png', fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await browser.close();
    await demo.close();
  }
});
