// Answers a reader can trust, measured (issue 31): the 32 reader questions of
// tests/fixtures/thursday-reader-questions.json asked through Lectern in headless Chromium at the
// reader's page, by in-browser models (wllama, one thread: SmolLM2-135M-Instruct with what the
// reading site gives it and with less, the base Gemma 3 270M in completion form) and by the site's
// Demo model (no AI: it quotes the passages it finds).
// For each: answers holding every reference fact, facts found, answers marked "not found in the
// book" (and how many of those held every fact), answers revealing past the reader's page (a
// spoiler pattern in the answer), and the first words' median time. Prints TABLE and FIGURE lines.
//
//   node benches/reader_answers.mjs        READER_ANSWERS_LIMIT=8 asks 8 questions (4 of each kind) spread over the book,
//                                          READER_ANSWERS_MODELS=demo,gemma3 only those rows,
//                                          READER_ANSWERS_IDS=gregory-belief only those questions (the one on page 31)
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { launchChromium } from '../tests/js/browser.mjs';
import { gemmaFixture, localFixtures, localMounts, root } from '../tests/js/local/fixtures.mjs';
import { startIsolatedServer } from '../tests/js/local/isolated-server.mjs';

const fixtures = localFixtures();
if (fixtures.skip) {
  console.log(fixtures.skip);
  process.exit(0);
}
const all = JSON.parse(readFileSync(join(root, 'tests/fixtures/thursday-reader-questions.json'), 'utf8')).questions;
// The 16 held-out questions (kept out of the quoted answer's tuning): the rows that ask them too.
const heldOut = JSON.parse(readFileSync(join(root, 'tests/fixtures/thursday-reader-questions-heldout.json'), 'utf8')).questions;
const limit = Math.min(all.length, Number(process.env.READER_ANSWERS_LIMIT ?? all.length));
/** `count` of `list`, spread evenly over it. */
const spread = (list, count) => Array.from({ length: count }, (_, i) => list[Math.floor((i * list.length) / count)]);
/** `limit` questions, half asked after the answer and half before its reveal, each half spread over the book. */
const before = all.filter((q) => q.revealPage != null);
const after = all.filter((q) => q.revealPage == null);
const ids = process.env.READER_ANSWERS_IDS?.split(',');
const questions = ids
  ? all.filter((q) => ids.includes(q.id))
  : limit === all.length
    ? all
    : [...spread(after, Math.ceil(limit / 2)), ...spread(before, Math.floor(limit / 2))];

const SITE_LOCAL = { strategy: 'alwaysRetrieve', readerPages: 0, passages: 3, maxContextTokens: 200, citations: false };
// The site's plan before (three passages within 300 tokens): what the wllama rows were measured with.
const PLAN_300 = { ...SITE_LOCAL, maxContextTokens: 300 };
// `readAhead`: as the reading site does, the local model reads the conversation's system prompt
// (Lectern's `systemPrompt`: the reading rules at the reader's page) before the question is asked,
// as it would while the reader reads the page; the question then reads its passages and itself.

/**
 * The models compared, each with what it reads: the Demo model as the reading site configures it
 * (the floor), SmolLM2 with the site's local plan and with one passage (facts against prompt
 * size), and the base Gemma 3 270M in completion form with the same plan.
 */
const CONFIGS = [
  { id: 'quotes', label: "Quotes from the book (no AI, `{ kind: 'quotes' }`): the default context, 1 to 3 sentences quoted", quotes: true, heldOut: true, retrieval: { strategy: 'alwaysRetrieve' } },
  { id: 'demo', label: 'Demo model (no AI): `search_book` with the question, by words (BM25)', demo: true, heldOut: true, retrieval: { strategy: 'toolUse' } },
  {
    id: 'demo_minilm',
    label: 'Demo model (no AI), the site: `search_book` with the question, hybrid (BM25 + MiniLM)',
    demo: true,
    minilm: true,
    retrieval: { strategy: 'toolUse' },
  },
  {
    id: 'smollm2',
    model: 'smollm2',
    label: 'SmolLM2-135M-Instruct (wllama, 1 thread), the site: `alwaysRetrieve`, 3 passages, ≤ 300 tokens',
    retrieval: PLAN_300,
  },
  {
    id: 'smollm2_one',
    model: 'smollm2',
    label: 'SmolLM2-135M-Instruct, 1 passage, ≤ 150 tokens',
    retrieval: { ...SITE_LOCAL, passages: 1, maxContextTokens: 150 },
  },
  {
    id: 'smollm2_own',
    model: 'smollm2',
    runtime: 'lectern',
    readAhead: true,
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder, 1 thread), the site: `alwaysRetrieve`, 3 passages, ≤ 200 tokens, the system prompt read ahead',
    retrieval: SITE_LOCAL,
  },
  {
    id: 'smollm2_own_2t',
    model: 'smollm2',
    runtime: 'lectern',
    threads: 2,
    readAhead: true,
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder, 2 threads), 3 passages, ≤ 200 tokens, read ahead',
    retrieval: SITE_LOCAL,
  },
  {
    id: 'smollm2_own_cold',
    model: 'smollm2',
    runtime: 'lectern',
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder), the same, nothing read ahead',
    retrieval: SITE_LOCAL,
  },
  {
    id: 'smollm2_own_300',
    model: 'smollm2',
    runtime: 'lectern',
    readAhead: true,
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder), 3 passages, ≤ 300 tokens (the site\'s plan before), read ahead',
    retrieval: PLAN_300,
  },
  {
    id: 'smollm2_own_300_2t',
    model: 'smollm2',
    runtime: 'lectern',
    threads: 2,
    readAhead: true,
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder, 2 threads), the site served cross-origin isolated: 3 passages, ≤ 300 tokens, read ahead',
    retrieval: PLAN_300,
  },
  {
    // Only the question on page 31 (below): issue 49's figure for the default context on two threads.
    id: 'smollm2_own_default_2t',
    model: 'smollm2',
    runtime: 'lectern',
    threads: 2,
    readAhead: true,
    page31Only: true,
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder, 2 threads), the default context (the reader\'s pages and passages, ~1,500 tokens), read ahead',
    retrieval: undefined,
  },
  {
    id: 'smollm2_own_more',
    model: 'smollm2',
    runtime: 'lectern',
    label: 'SmolLM2-135M-Instruct (Lectern\'s own decoder), `alwaysRetrieve`, 5 passages, ≤ 600 tokens',
    retrieval: { ...SITE_LOCAL, passages: 5, maxContextTokens: 600 },
  },
  {
    id: 'gemma3',
    model: 'gemma3',
    completion: true,
    label: 'Gemma 3 270M base (wllama, 1 thread, completion form), 3 passages, ≤ 300 tokens',
    retrieval: PLAN_300,
  },
];
const only = process.env.READER_ANSWERS_MODELS?.split(',');

const matches = (pattern, text) => new RegExp(pattern, 'i').test(text.split(/\s+/).join(' '));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};

/** The row of one model's answers to `asked` (`set` names the question set in the row's label). */
function score(config, answers, asked = questions, set = '') {
  let whole = 0;
  let facts = 0;
  let factCount = 0;
  let marked = 0;
  let markedRight = 0;
  let revealing = 0;
  let sentences = 0;
  let unsupported = 0;
  let unsupportedRight = 0;
  let missingUnmarked = 0;
  let repeating = 0;
  for (const answer of answers) {
    if (repeatsASentence(answer.answer)) {
      repeating += 1;
      console.log(`  ${config.id} ${answer.id} repeats a sentence: ${JSON.stringify(answer.answer.slice(0, 240))}`);
    }
    const q = asked.find((question) => question.id === answer.id);
    const found = q.facts.filter((fact) => matches(fact, answer.answer)).length;
    facts += found;
    factCount += q.facts.length;
    const right = found === q.facts.length;
    whole += right ? 1 : 0;
    if (answer.grounded === false) {
      marked += 1;
      markedRight += right ? 1 : 0;
    }
    revealing += q.spoilers.some((s) => matches(s, answer.answer)) ? 1 : 0;
    sentences += answer.sentences ?? 0;
    unsupported += answer.unsupported ?? 0;
    // An unsupported sentence holding a reference fact: marked "not in the book", yet right.
    unsupportedRight += (answer.unsupportedTexts ?? []).filter((text) => q.facts.some((fact) => matches(fact, text))).length;
    missingUnmarked += !right && answer.grounded !== false ? 1 : 0;
  }
  const first = median(answers.map((a) => a.firstMs)) / 1000;
  const tokens = median(answers.map((a) => a.inputTokens));
  const label = set ? `${config.label}, ${set}` : config.label;
  const id = set ? `${config.id}_heldout` : config.id;
  console.log(
    `TABLE reader_answers | ${label} | ${whole}/${answers.length} | ${facts}/${factCount} | ${marked} (${markedRight} of them right) | ${revealing} | ${first.toFixed(1)} s | ${tokens} | ${unsupported} of ${sentences} | ${unsupportedRight} | ${missingUnmarked} |`,
  );
  console.log(`FIGURE answers_${id}_whole chromium ${whole / answers.length}`);
  console.log(`FIGURE answers_${id}_facts chromium ${(facts / Math.max(1, factCount)).toFixed(3)}`);
  console.log(`FIGURE answers_${id}_marked chromium ${marked / answers.length}`);
  console.log(`FIGURE answers_${id}_first_s chromium ${first.toFixed(2)}`);
  console.log(`FIGURE answers_${id}_repeating chromium ${repeating}`);
}

/** Whether `text` writes one sentence (of three words or more) twice, ignoring case and spacing. */
export function repeatsASentence(text) {
  const seen = new Set();
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const words = sentence.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
    if (words.length < 3) continue;
    const key = words.join(' ');
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

const gemma = gemmaFixture();
if (gemma.skip) console.log(gemma.skip);
const models = {
  smollm2: { path: `/models/${basename(fixtures.model)}`, name: 'smollm2-135m-instruct' },
  gemma3: gemma.url && { path: gemma.url, name: 'gemma3-270m' },
};
const mounts = { ...localMounts(fixtures), '/site/': join(root, 'www/site'), ...gemma.mount };
const server = await startIsolatedServer(mounts);
const browser = await launchChromium();

/** `questions` asked of `config`'s model (`model`: its path and name) in a fresh page. */
async function ask(config, model, questions) {
  const page = await browser.newPage();
  await page.goto(server.url);
  const answers = await page.evaluate(
    async (options) => (await import('/answers.js')).answerQuestions(options),
    {
      model: model?.path,
      name: model?.name,
      completion: config.completion,
      demo: config.demo ?? false,
      quotes: config.quotes ?? false,
      runtime: config.runtime,
      threads: config.threads ?? 1,
      readAhead: config.readAhead ?? false,
      retrieval: config.retrieval,
      embedder: config.minilm ? { kind: 'minilm', modelUrl: '/minilm/model.safetensors', vocabUrl: '/minilm/vocab.txt' } : undefined,
      questions,
    },
  );
  await page.close();
  return answers;
}

try {
  console.log(`${questions.length} reader questions on Thursday, each in a conversation of its own at the reader's page`);
  console.log('TABLE reader_answers | model, and what it reads | answers holding every fact | facts found | marked "not found in the book" | revealing past the page | first words (median) | prompt tokens (median) | sentences unsupported | unsupported, yet holding a reference fact | unmarked, missing a fact |');
  console.log('TABLE reader_answers | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const config of CONFIGS) {
    if ((only && !only.includes(config.id)) || config.page31Only) continue;
    const model = config.model && models[config.model];
    if (config.model && !model) continue;
    const answers = await ask(config, model, questions);
    for (const a of answers) console.log(`  ${config.id} ${a.id}: ${(a.firstMs / 1000).toFixed(1)} s, grounded ${a.grounded}: ${JSON.stringify(a.answer.slice(0, 160))}`);
    score(config, answers);
    if (config.heldOut && !ids && limit === all.length) {
      const held = await ask(config, model, heldOut);
      for (const a of held) console.log(`  ${config.id} held out ${a.id}: ${JSON.stringify(a.answer.slice(0, 160))}`);
      score(config, held, heldOut, 'the 16 held-out questions');
    }
  }
  // The figure: the reading site's default (the in-browser model with its plan, the system
  // prompt read ahead) asked the question on page 31 on a freshly loaded model.
  // Then the site's default served cross-origin isolated (two threads, 300 tokens).
  const page31 = all.find((q) => q.page === 31);
  // And the default context (~1,500 tokens: the reader's pages and passages) on two threads.
  for (const [id, figure] of [
    ['smollm2_own', 'answers_site_page31_first_s'],
    ['smollm2_own_300_2t', 'answers_site_page31_first_s_2t'],
    ['smollm2_own_default_2t', 'answers_site_page31_default_first_s_2t'],
  ]) {
    const site = CONFIGS.find((c) => c.id === id);
    if ((only && !only.includes(site.id)) || ids || !page31) continue;
    const [answer] = await ask(site, models.smollm2, [page31]);
    console.log(`  page 31 (${page31.id}, ${id}): ${(answer.firstMs / 1000).toFixed(1)} s, ${answer.inputTokens} prompt tokens: ${JSON.stringify(answer.answer.slice(0, 160))}`);
    console.log(`FIGURE ${figure} chromium ${(answer.firstMs / 1000).toFixed(2)}`);
    console.log(`FIGURE ${figure.replace(/_first_s/, '_prompt_tokens')} chromium ${answer.inputTokens}`);
  }
} finally {
  await browser.close();
  await server.close();
}
