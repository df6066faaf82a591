// The LLM-as-judge helper itself, offline: the mock server plays the judge,
// answering YES or NO in each wire format, and the request it got is checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMockServer } from '../mock-server/server.mjs';
import { judgeLeak, judgeResponse } from '../helpers/judge.mjs';

let mock;
before(async () => {
  mock = await startMockServer();
});
after(() => mock.close());

const script = (session, turns) =>
  fetch(`${mock.url}/__mock/${session}/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ turns }),
  });
const requests = async (session) => (await fetch(`${mock.url}/__mock/${session}/requests`)).json();

for (const kind of ['openai', 'anthropic']) {
  test(`${kind}: the judge's YES passes, its NO fails, and it was asked about both texts`, async () => {
    const session = `judge-${kind}`;
    await script(session, [
      { text: 'YES. It names Saffron Park.' },
      { text: 'No — the answer names the wrong park.' },
      { text: '**Yes**, it does.' },
    ]);
    const judge = { kind, apiKey: 'test-key', model: 'judge-model', baseUrl: `${mock.url}/s/${session}/v1` };
    const expected = 'Says the story opens in Saffron Park.';
    assert.equal(await judgeResponse(judge, 'It opens in Saffron Park.', expected), true);
    assert.equal(await judgeResponse(judge, 'It opens in Hyde Park.', expected), false);
    assert.equal(await judgeResponse(judge, 'Saffron Park.', expected), true);
    const sent = await requests(session);
    assert.equal(sent.length, 3);
    const prompt = sent[1].body.messages.at(-1).content;
    assert.match(prompt, /EXPECTATION:\nSays the story opens in Saffron Park\./);
    assert.match(prompt, /ACTUAL:\nIt opens in Hyde Park\./);
    assert.equal(sent[1].body.model, 'judge-model');
    assert.notEqual(sent[1].body.stream, true);
    if (kind === 'anthropic') assert.equal(sent[1].headers['x-api-key'], 'test-key');
    else assert.equal(sent[1].headers.authorization, 'Bearer test-key');
  });
}

test('a judge that answers an HTTP error is an error, not a verdict', async () => {
  await script('judge-down', [{ fault: { status: 500 } }]);
  const judge = { kind: 'openai', apiKey: 'k', model: 'm', baseUrl: `${mock.url}/s/judge-down/v1` };
  await assert.rejects(judgeResponse(judge, 'a', 'b'), /judge call failed: HTTP 500/);
});

test('the verdict is the first word, whatever its case and punctuation', async () => {
  await script('judge-words', [{ text: ' no. It misses the point' }, { text: 'Yes!' }, { text: 'Yesterday it said so.' }]);
  const judge = { kind: 'openai', apiKey: 'k', model: 'm', baseUrl: `${mock.url}/s/judge-words/v1` };
  assert.equal(await judgeResponse(judge, 'a', 'b'), false);
  assert.equal(await judgeResponse(judge, 'a', 'b'), true);
  assert.equal(await judgeResponse(judge, 'a', 'b'), false);
});

test('the spoiler judge asks whether the answer reveals anything past the reader\'s page', async () => {
  await script('judge-leak', [{ text: 'YES. It says Sunday is the Sabbath.' }, { text: 'No, it stays before page 10.' }]);
  const judge = { kind: 'openai', apiKey: 'k', model: 'm', baseUrl: `${mock.url}/s/judge-leak/v1` };
  const later = 'Sunday is the Sabbath, the peace of God; every member of the Council is a detective.';
  assert.equal(await judgeLeak(judge, 'Sunday turns out to be the Sabbath.', { readerPage: 10, later }), true, 'YES: a leak');
  assert.equal(await judgeLeak(judge, 'The book has not said yet.', { readerPage: 10, later }), false, 'NO: none');
  const prompt = (await requests('judge-leak'))[0].body.messages.at(-1).content;
  assert.match(prompt, /read up to page 10/);
  assert.match(prompt, /AFTER page 10:\nSunday is the Sabbath/);
  assert.match(prompt, /ANSWER:\nSunday turns out to be the Sabbath\./);
});
