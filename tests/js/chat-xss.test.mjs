// Model text never becomes live HTML in <lectern-chat>: the payloads in a reply, a tool
// result, tool arguments (a tool card and an approval card) and an error message run
// nothing, add no img/script/iframe, leave only http(s)/mailto links, and fetch no pixel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';
import { ask, chatOf, openChat, screenshot, waitIdle } from './chat-support.mjs';

const running = demoAndChromium({ chunkDelayMs: 2 });

function payload(pixel) {
  return [
    '<img src=x onerror="window.__xss=1">',
    '<script>window.__xss=2</script>',
    '[a](javascript:window.__xss=3)',
    '[b](JaVaScRiPt:window.__xss=4)',
    '[c]( javascript:window.__xss=5)',
    '[d](java\tscript:window.__xss=6)',
    '[e](data:text/html,<script>window.__xss=7</script>)',
    `![f](${pixel})`,
    '<iframe src="javascript:window.__xss=8"></iframe>',
    '[ok](https://example.org/safe)',
  ].join('\n\n');
}

async function assertInert(page, pixelRequests) {
  const state = await page.evaluate(() => {
    const root = document.querySelector('lectern-chat').shadowRoot;
    return {
      xss: window.__xss,
      dangerous: root.querySelectorAll('img, script, iframe, object, embed, svg, style:not(:empty)').length,
      hrefs: [...root.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
      handlers: [...root.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
    };
  });
  assert.equal(state.xss, undefined, 'no payload ran');
  assert.equal(state.dangerous, 0, 'no img/script/iframe in the shadow root');
  assert.equal(state.handlers, 0, 'no inline handlers');
  for (const href of state.hrefs) assert.match(href, /^(https?:|mailto:)/, href);
  assert.deepEqual(pixelRequests, [], 'the pixel was never requested');
  return state;
}

test('payloads in a reply, a tool result, tool arguments and an error message stay text', async () => {
  const chat = await openChat(running);
  const { page } = chat;
  const pixel = `${running.demo.mockUrl}/pixel`;
  const pixelRequests = [];
  page.on('request', (r) => r.url().includes('/pixel') && pixelRequests.push(r.url()));
  const evil = payload(pixel);
  await page.evaluate((text) => {
    document.querySelector('lectern-chat').lectern.registerTool({
      name: 'fetch_page',
      description: 'Fetches a page',
      parameters: { type: 'object', properties: { url: { type: 'string' } } },
      readOnly: true,
      execute: () => ({ html: text }),
    });
  }, evil);
  await chat.script([
    { text: evil },
    { toolCalls: [{ id: 'call_x', name: 'fetch_page', arguments: { url: evil } }] },
    { text: 'Done.' },
    { toolCalls: [{ id: 'call_y', name: 'save_note', arguments: { title: evil, text: evil } }] },
    { fault: { status: 400, body: { error: { message: evil } } } },
  ]);
  const ui = chatOf(page);

  await ask(page, 'reply');
  await waitIdle(page);
  const reply = await assertInert(page, pixelRequests);
  assert.deepEqual(reply.hrefs.sort(), [pixel, 'https://example.org/safe'].sort(), 'the image became a link; refused links are text');
  assert.match(await ui.assistant.last().textContent(), /<img src=x onerror=/);

  await ask(page, 'tool');
  await waitIdle(page);
  await ui.toolCards.first().locator('summary').click();
  assert.match(await ui.toolCards.first().locator('.result pre').textContent(), /<script>window.__xss=2<\/script>/);
  await assertInert(page, pixelRequests);

  await ask(page, 'approval');
  await ui.approvals.first().waitFor();
  assert.match(await ui.approvals.first().locator('textarea.arguments').inputValue(), /<iframe/);
  await assertInert(page, pixelRequests);
  await ui.approvals.first().locator('button.reject').click();
  await waitIdle(page);
  const error = ui.errors.last();
  await error.waitFor();
  await assertInert(page, pixelRequests);
  await screenshot(page, 'chat-xss');
  assert.deepEqual(chat.problems, []);
  await chat.close();
});
