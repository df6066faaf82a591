// The faults of issue 10, one row each: the mock's script, how the row is
// driven (one `send` unless said otherwise) and what must come out.
//
// expect: outcomes  per settled call, `{ status, text? }` or `{ error, fields? }`
//                   (`error: true`: any of Lectern's typed errors)
//         requests  how many model requests the mock got
//         modelRead patterns the tool results sent back to the model must show
//         runs      `{ 'tool:callId': n }`, exactly
//         check     more assertions, `(observed) => void`
//         note      more to say in the outcome column, `(observed) => string`
import assert from 'node:assert/strict';
import { call } from './row-run.mjs';
import { brief } from './expectations.mjs';
import * as drive from './drivers.mjs';

const completed = (text) => ({ status: 'completed', text });
const slowly = (text) => ({ text, chunkDelayMs: 60 });

/** Roles of the stored messages, in order. */
const roles = (observed) => observed.stored.messages.map((m) => m.role).join(', ');

export const ROWS = [
  {
    fault: '429 with Retry-After: 1',
    script: [{ fault: { status: 429, retryAfter: 1 } }, { text: 'Worth the wait.' }],
    expect: { outcomes: [completed('Worth the wait.')], requests: 2 },
  },
  {
    fault: '500 three times',
    script: Array(3).fill({ fault: { status: 500, body: { error: { message: 'upstream exploded' } } } }),
    expect: { outcomes: [{ error: 'ApiError', fields: { status: 500 } }], requests: 3 },
  },
  {
    fault: 'stream dropped mid-answer',
    script: [{ text: 'one two three four five six', fault: { dropAfterChunks: 3 }, chunkDelayMs: 20 }],
    expect: { outcomes: [{ error: 'ConnectionError', fields: { partialText: 'one two' } }], requests: 1 },
  },
  {
    fault: 'malformed chunk',
    script: [{ text: 'a b c', fault: { malformedAt: 2 } }],
    expect: { outcomes: [{ error: 'ProtocolError' }], requests: 1 },
  },
  {
    fault: 'Anthropic `overloaded_error` mid-stream',
    options: { kind: 'anthropic' },
    script: [{ text: 'Partial answer here', fault: { errorEventAfterChunks: 4 } }],
    expect: { outcomes: [{ error: 'ApiError', fields: { status: 529, partialText: 'Partial' } }], requests: 1 },
  },
  {
    fault: 'a tool that throws',
    script: [call('explode', 'c_throw'), { text: 'The tool broke; here is what I know.' }],
    expect: {
      outcomes: [completed('The tool broke; here is what I know.')],
      requests: 2,
      modelRead: [/boom: the tool exploded/],
      runs: { 'explode:c_throw': 1 },
    },
  },
  {
    fault: 'a tool that hangs past its timeout (300 ms)',
    script: [call('stall', 'c_stall'), { text: 'The tool was too slow.' }],
    expect: {
      outcomes: [completed('The tool was too slow.')],
      requests: 2,
      modelRead: [/Tool timed out after 300 ms/],
      runs: { 'stall:c_stall': 1 },
    },
  },
  {
    fault: 'an unknown tool',
    script: [call('no_such_tool', 'c_unknown'), { text: 'That tool does not exist.' }],
    expect: { outcomes: [completed('That tool does not exist.')], requests: 2, modelRead: [/Unknown tool: no_such_tool/], runs: {} },
  },
  {
    fault: 'invalid arguments, then corrected',
    script: [call('probe', 'c_bad', { tag: 7 }), call('probe', 'c_good'), { text: 'Fixed my call.' }],
    expect: {
      outcomes: [completed('Fixed my call.')],
      requests: 3,
      modelRead: [/Invalid arguments: .*tag/, /"ok":"c_good"/],
      runs: { 'probe:c_good': 1 },
    },
  },
  {
    fault: 'quota exceeded during a tool step, then a send with room again',
    drive: drive.quotaDuringStep,
    // The origin's quota is set over CDP (Storage.overrideQuotaForOrigin): Chromium's protocol.
    chromiumOnly: 'the quota is set over CDP, which only Chromium speaks',
    script: [call('bulky', 'c_bulky'), { text: 'Room again.' }],
    expect: {
      outcomes: [{ error: 'StorageError', fields: { reason: 'quota' } }, completed('Room again.')],
      requests: 2,
      note: (observed) => `stored ${roles(observed)}`,
      runs: { 'bulky:c_bulky': 1 },
    },
  },
  {
    fault: 'the page closed mid-turn, reopened, a later send',
    drive: drive.pageClosedMidTurn,
    script: [slowly('a long answer that streams in slowly word by word'), { text: 'Back again.' }],
    expect: {
      outcomes: [completed('Back again.')],
      requests: 2,
      check: (observed) => assert.equal(observed.stored.messages.at(-1).content, 'Back again.'),
    },
  },
  {
    fault: 'the database closed mid-stream, reopened, a later send',
    drive: drive.databaseClosedMidStream,
    script: [slowly('a long answer that streams in slowly word by word'), { text: 'Back again.' }],
    expect: { outcomes: [{ error: true }, completed('Back again.')], requests: 2 },
  },
  {
    fault: 'two tabs sending to one conversation at once',
    drive: drive.twoTabsOneConversation,
    script: [slowly('The first answer, word by word.'), slowly('The second answer, word by word.')],
    expect: {
      outcomes: [{ status: 'completed' }, { status: 'completed' }],
      requests: 2,
      note: (observed) => `stored ${roles(observed)}`,
      check(observed) {
        assert.equal(roles(observed), 'user, assistant, user, assistant', 'turns must not interleave');
        const second = observed.requests[1].body.messages.filter((m) => m.role !== 'system');
        assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'user'], 'the second turn sees the first whole');
      },
    },
  },
  {
    fault: 'two tabs resolving one approval at once',
    drive: drive.twoTabsOneApproval,
    options: { approvals: { tools: { probe: 'ask' } } },
    script: [call('probe', 'c_ask'), { text: 'Ran it once.' }],
    expect: {
      outcomes: [{ status: 'awaitingApproval' }],
      requests: 2,
      runs: { 'probe:c_ask': 1 },
      check(observed) {
        const [, ...resolves] = observed.outcomes;
        const won = resolves.filter((o) => o.value?.status === 'completed');
        const lost = resolves.filter((o) => o.error?.name === 'AlreadyResolvedError');
        assert.equal(won.length, 1, `one tab wins: ${brief(resolves)}`);
        assert.equal(lost.length, 1, `the other gets AlreadyResolvedError: ${brief(resolves)}`);
      },
    },
  },
];
