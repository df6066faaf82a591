// Prints llama.cpp's tokenization of fixed strings by Gemma 3 270M's SentencePiece vocabulary
// (wllama 3.8.1 in headless Chromium), as JSON: the reference the tokenizer's native test reads
// (tests/fixtures/local/gemma3-tokens.json). Skips with a message without the model
// (scripts/fetch-gemma3.sh, or LECTERN_GEMMA3=<path>).
//
//   node scripts/tokens-reference.mjs > tests/fixtures/local/gemma3-tokens.json
//
// wllama 3.8.1 has no tokenize call, so the ids are read off what a completion shows:
// - the string's token count, as the prompt's `usage.prompt_tokens` (less the BOS llama.cpp adds);
// - its tokens with their multiplicities: the string is also the completion's `logit_bias`, which
//   llama.cpp tokenizes (control tokens unparsed) and adds once per occurrence, so after sampling
//   at a high temperature a token's log-probability stands LEVEL nats above the unbiased tokens'
//   per occurrence, and `bytes` gives each token's piece;
// - their order: the one way to lay those pieces, each as often as it occurs, end to end over the
//   string's bytes (the script stops if there are more, or the counts disagree).
// Byte tokens (`<0xF0>`, a character's fallback) are kept out of the list (wllama fails on a lone
// byte in its JSON): the tokens the count has beyond the listed ones are byte tokens, each laid
// over one byte the listed pieces leave.
// Control tokens (`<start_of_turn>`) are cut out first, as llama.cpp's prompt parsing does, their
// ids read from the GGUF's vocabulary; each piece between them is asked for alone.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { fetched, root, wllamaFiles } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const TEXTS = [
  'Hello world',
  'The quick brown fox jumps over the lazy dog.',
  ' leading space',
  '  two leading spaces, a  double and a    quadruple one',
  'trailing spaces   ',
  'line one\nline two\n\nline four\n',
  'tabs\tand\t\ttabs',
  'digits 0123456789, pi 3.14159 and 2024-11-27',
  'Punctuation: (a), [b]; {c}! "quoted" \'single\' — dash… ellipsis? #tag @user 50% a+b=c',
  'Accents: café, naïve, Ångström, façade, über, señor',
  'Emoji 🦀 and CJK 中文, byte fallback 𓀀 ꙮ 𐍈 🧌 and a no-break\u00a0space',
  'Gabriel Syme was a poet who became a detective. He met Lucian Gregory in Saffron Park.',
  '<table><tr><td>cell</td></tr></table> <b>bold</b>',
  '<start_of_turn>user\nWhat is the capital of France?<end_of_turn>\n<start_of_turn>model\n',
];
const BIAS = 1000;
const TEMPERATURE = 250;
const LEVEL = BIAS / TEMPERATURE;
const TOP = 64;
const CONTROL = 3;

/** `tokenizer.ggml.tokens` and `tokenizer.ggml.token_type` from a GGUF file's metadata. */
function readVocabulary(path) {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(64 << 20);
  const end = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  let at = 0;
  const need = (n) => {
    if (at + n > end) throw new Error('the GGUF metadata runs past what was read');
  };
  const u32 = () => (need(4), (at += 4), buf.readUInt32LE(at - 4));
  const u64 = () => (need(8), (at += 8), Number(buf.readBigUInt64LE(at - 8)));
  const str = () => {
    const n = u64();
    need(n);
    at += n;
    return buf.toString('utf8', at - n, at);
  };
  const SIZES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const value = (type) => {
    if (type === 8) return str();
    if (type === 9) {
      const itemType = u32();
      const n = u64();
      if (itemType === 8) return Array.from({ length: n }, str);
      if (itemType === 5) return Array.from({ length: n }, () => (need(4), (at += 4), buf.readInt32LE(at - 4)));
      need(n * SIZES[itemType]);
      at += n * SIZES[itemType];
      return null;
    }
    need(SIZES[type]);
    at += SIZES[type];
    return null;
  };
  if (buf.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`${path} is not a GGUF file`);
  at = 8;
  u64();
  const keys = u64();
  const meta = {};
  for (let i = 0; i < keys; i++) {
    const key = str();
    meta[key] = value(u32());
  }
  return { tokens: meta['tokenizer.ggml.tokens'], types: meta['tokenizer.ggml.token_type'] };
}

/** `text` cut at the control tokens in it (the longest first where two start together). */
function splitControls(text, controls) {
  const parts = [];
  let plain = '';
  for (let i = 0; i < text.length; ) {
    const hit = controls.find(([t]) => text.startsWith(t, i));
    if (hit) {
      if (plain) parts.push({ text: plain });
      plain = '';
      parts.push({ id: hit[1] });
      i += hit[0].length;
    } else {
      plain += text[i];
      i += 1;
    }
  }
  if (plain) parts.push({ text: plain });
  return parts;
}

/** Each biased token's id, piece and count: its log-probability in LEVEL steps above the unbiased tokens'. */
function multiset(probs, eos) {
  probs = probs.filter((p) => p.prob > 0 && p.id !== eos);
  const logs = probs.map((p) => Math.log(p.prob));
  const floor = Math.min(...logs);
  const unbiased = Math.max(...logs.filter((l) => l < floor + LEVEL / 2));
  const counts = probs
    .map((p, i) => ({ id: p.id, bytes: Buffer.from(p.bytes), count: Math.round((logs[i] - unbiased) / LEVEL) }))
    .filter((t) => t.count > 0);
  if (counts.length >= TOP - 4) throw new Error('too many distinct tokens to tell the unbiased ones');
  return counts;
}

/**
 * Every order of `pieces` (each used `count` times) and `fallbacks` byte tokens (`byteIds[b]` for
 * byte b) that spells `bytes` exactly, up to two.
 */
function layouts(bytes, pieces, fallbacks, byteIds) {
  const found = [];
  const path = [];
  const walk = (at) => {
    if (found.length > 1) return;
    if (at === bytes.length) {
      if (fallbacks === 0 && pieces.every((p) => p.count === 0)) found.push([...path]);
      return;
    }
    if (fallbacks > 0) {
      fallbacks -= 1;
      path.push(byteIds[bytes[at]]);
      walk(at + 1);
      path.pop();
      fallbacks += 1;
    }
    for (const p of pieces) {
      if (p.count === 0 || p.bytes.length === 0 || !bytes.subarray(at, at + p.bytes.length).equals(p.bytes)) continue;
      p.count -= 1;
      path.push(p.id);
      walk(at + p.bytes.length);
      path.pop();
      p.count += 1;
    }
  };
  walk(0);
  return found;
}

const model = fetched('LECTERN_GEMMA3', 'fetch-gemma3.sh');
const { wllamaDir, skip } = wllamaFiles();
const missing = model.skip ?? skip ?? (existsSync(join(root, 'pkg/lectern_wllama.js')) ? null : 'SKIPPED: no pkg/ (bash scripts/build.sh)');
if (missing) {
  console.error(missing);
  process.exit(0);
}
const { tokens, types } = readVocabulary(model.value);
const byteIds = Array.from({ length: 256 }, (_, b) => tokens.indexOf(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`));
const controls = tokens
  .map((t, id) => [t, id])
  .filter(([t, id]) => types[id] === CONTROL && TEXTS.some((text) => text.includes(t)))
  .sort((a, b) => b[0].length - a[0].length);
const split = TEXTS.map((text) => splitControls(text, controls));
const asked = [...new Set([...TEXTS, ...split.flat().flatMap((p) => (p.text ? [p.text] : []))])];

const server = await startIsolatedServer({
  '/': join(root, 'tests/js/local/page'),
  '/pkg/': join(root, 'pkg'),
  '/wllama/': wllamaDir,
  '/models/': dirname(model.value),
});
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  const seen = await page.evaluate(
    async (options) => (await import('/session.js')).biasedTokens(options),
    {
      model: `/models/${basename(model.value)}`,
      texts: asked,
      bias: BIAS,
      temperature: TEMPERATURE,
      top: TOP,
      hidden: byteIds.filter((id) => id >= 0),
    },
  );
  const byText = new Map(seen.cases.map((c) => [c.text, c]));
  const count = (text) => byText.get(text).promptTokens - (seen.addBos ? 1 : 0);
  const idsOf = (text) => {
    const pieces = multiset(byText.get(text).probs, seen.eos);
    const listed = pieces.reduce((n, p) => n + p.count, 0);
    if (listed > count(text)) throw new Error(`${JSON.stringify(text)}: ${listed} biased tokens, ${count(text)} in the prompt`);
    const found = layouts(Buffer.from(text, 'utf8'), pieces, count(text) - listed, byteIds);
    if (found.length !== 1) throw new Error(`${JSON.stringify(text)}: ${found.length} ways to lay its tokens`);
    return found[0];
  };
  const cases = TEXTS.map((text, i) => {
    const ids = split[i].flatMap((part) => (part.text ? idsOf(part.text) : [part.id]));
    if (ids.length !== count(text)) throw new Error(`${JSON.stringify(text)}: ${ids.length} ids, ${count(text)} in the prompt`);
    return { text, ids };
  });
  const { bos, eos, eot, addBos } = seen;
  const head = {
    model: basename(model.value),
    runtime: 'wllama 3.8.1 (llama.cpp): prompt token counts and logit_bias multiplicities',
    bos,
    eos,
    eot,
    addBos,
  };
  const lines = cases.map((c) => `  ${JSON.stringify(c)}`).join(',\n');
  console.log(`${JSON.stringify(head, null, 1).slice(0, -2)},\n "cases": [\n${lines}\n ]\n}`);
} finally {
  await browser.close();
  await server.close();
}
