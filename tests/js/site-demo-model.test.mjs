// The reading site's "Demo model (no AI)" in Node: it searches first, then quotes what
// search_book returned (pages named, long passages cut at a word), and says when nothing was found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAnswer, demoProvider, excerpt } from '../../www/site/demo-model.js';

const result = '[Pages 3-3]\nThe keeper found the «chart» — 日本語 too.\n\n[Pages 4-5]\n' + 'Long passage word '.repeat(40);

test('the answer quotes each passage with its pages, long ones cut at a word', () => {
  const text = demoAnswer('chart', result);
  assert.match(text, /^Demo model \(no AI\)/);
  assert.match(text, /\*\*From page 3:\*\* “The keeper found the «chart» — 日本語 too\.”/);
  assert.match(text, /\*\*From pages 4–5:\*\* “Long passage word .* …”$/);
  assert.ok(!/Long passage wor …|Long passage w …/.test(text), 'cut between words, not inside one');
  assert.match(demoAnswer('nothing', 'No relevant passages found.'), /no passage about “nothing” up to your page/);
});

test('asked a question it calls search_book; given the result it streams the answer', async () => {
  const { call, kind, model } = demoProvider();
  assert.equal(kind, 'custom');
  const tools = [{ type: 'function', function: { name: 'search_book' } }];
  const question = { role: 'user', content: 'Where is the chart?' };
  const first = await call({ model, messages: [question], tools });
  const [toolCall] = first.choices[0].message.tool_calls;
  assert.equal(toolCall.function.name, 'search_book');
  assert.deepEqual(JSON.parse(toolCall.function.arguments), { query: 'Where is the chart?' });

  const second = await call({
    model,
    tools,
    messages: [question, first.choices[0].message, { role: 'tool', tool_call_id: toolCall.id, content: result }],
  });
  let text = '';
  let pieces = 0;
  for await (const chunk of second) {
    text += chunk.choices[0].delta.content ?? '';
    pieces += 1;
  }
  assert.equal(text, demoAnswer('Where is the chart?', result));
  assert.ok(pieces > 10, 'word by word');

  const aborted = new AbortController();
  const stream = await call({ model, tools, messages: [question, first.choices[0].message, { role: 'tool', content: result }] }, { signal: aborted.signal });
  aborted.abort();
  await assert.rejects(async () => {
    for await (const _ of stream);
  });
});

test('a long passage is quoted around the first word of the question it contains', () => {
  const filler = 'The tide came in and went out again. '.repeat(20);
  const text = `${filler}On that page the keeper found the Zanzibar chart. ${filler}`;
  const quote = excerpt(text, 'Where is the zanzibar chart?');
  assert.match(quote, /^… .*the Zanzibar chart\. .* …$/);
  assert.ok(quote.length < 340, `${quote.length} characters`);
  assert.ok(!/^… \S*[a-z]The/.test(quote) && /^… (The|tide|came|in|and|went|out|again\.) /.test(quote), `starts at a word: ${quote.slice(0, 30)}`);
  assert.equal(excerpt('Short text.', 'nothing here'), 'Short text.');
});
