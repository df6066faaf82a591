// A real tool call: llama-server (Qwen2.5's chat template, `--jinja`) writes `<tool_call>…`, parses
// it into the stream's `tool_calls` deltas, Lectern assembles the call, runs the host's tool once
// with the parsed arguments, sends the result back and ends the turn on the model's answer.
//
// SmolLM2-135M was never taught to call tools: asked about the weather it answers in prose, even
// with `tool_choice: 'required'` (llama.cpp's grammar then lets prose come first and the model
// never reaches the call within the token limit). Asked to write the call's line, it does; from
// `<tool_call>` on llama.cpp's grammar holds the call to the tool's schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLectern, providerFor, realServer, send } from './harness.mjs';

const real = realServer();
const skip = real.skip;

const ASK = 'Reply exactly with this line: <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';

/** In the page: registers `get_weather`, which records each call's arguments in `window.ran`. */
const registerWeather = (page) =>
  page.evaluate(() => {
    window.ran = [];
    window.lectern.registerTool({
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      readOnly: true,
      execute: async (args) => {
        window.ran.push(args);
        return { city: args.city, temperatureC: 12, sky: 'rain' };
      },
    });
  });

test("a tool call parsed from the server's stream runs once with its arguments", { skip, timeout: 400000 }, async () => {
  const { page, bodies, answers } = await openLectern(real, providerFor(real, { toolChoice: 'auto' }), {
    approvals: { default: 'auto' },
  });
  await registerWeather(page);
  const { reply, error } = await send(page, ASK);
  assert.equal(error, undefined, JSON.stringify(error));

  assert.deepEqual(await page.evaluate(() => window.ran), [{ city: 'Oslo' }], 'the tool ran exactly once, with the parsed arguments');
  assert.equal(bodies.length, 2, 'a call for the tool, then one with its result');
  assert.equal(bodies[0].tool_choice, 'auto');
  assert.deepEqual(bodies[0].tools.map((t) => t.function.name), ['get_weather']);
  // The call came as llama-server's stream of tool-call deltas, not as text.
  const sse = await answers[0];
  assert.match(sse, /"tool_calls":\[\{/);
  assert.match(sse, /"finish_reason":"tool_calls"/);
  const events = await page.evaluate(() => window.events);
  assert.ok(events.some((e) => e.type === 'toolCallDelta'), 'toolCallDelta events while the call streamed');
  const invoked = events.filter((e) => e.type === 'toolInvocation');
  assert.equal(invoked.length, 1);
  assert.deepEqual(invoked[0].arguments, { city: 'Oslo' });
  const results = events.filter((e) => e.type === 'toolResult');
  assert.equal(results.length, 1);
  assert.equal(results[0].error ?? null, null);
  // The second request carries the call and its result back to the model.
  const [call, result] = bodies[1].messages.slice(-2);
  assert.equal(call.role, 'assistant');
  assert.equal(call.tool_calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.tool_calls[0].function.arguments), { city: 'Oslo' });
  assert.equal(result.role, 'tool');
  assert.equal(result.tool_call_id, call.tool_calls[0].id);
  assert.deepEqual(JSON.parse(result.content), { city: 'Oslo', temperatureC: 12, sky: 'rain' });

  assert.equal(reply.status, 'completed');
  assert.equal(reply.steps, 2);
  assert.equal(reply.toolCalls.length, 1);
  const [record] = reply.toolCalls;
  assert.equal(record.name, 'get_weather');
  // The record's arguments: JSON text, or (main's issue-48 shape) an object beside `argumentsText`.
  assert.deepEqual(JSON.parse(record.argumentsText ?? record.arguments), { city: 'Oslo' });
  await page.close();
});
