// The code blocks of README.md and docs/*.md, as the readme test runs them: each
// ```js or ```html block with its file and line, and the module source that runs it in a page.
import { readdirSync, readFileSync } from 'node:fs';

/** The markdown files whose blocks run: README.md, then every docs/*.md (paths from the repository's root). */
export function documentationFiles(root = '.') {
  const docs = readdirSync(`${root}/docs`).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Every ```js and ```html block of `markdown`: `{ lang, code, line, file }` (line: the fence's, 1-based). */
export function codeBlocks(markdown, file = 'README.md') {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(js|html)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: a \`\`\`${open[1]} block is never closed`);
    blocks.push({ lang: open[1], code: lines.slice(i + 1, end).join('\n'), line: i + 1, file });
    i = end;
  }
  return blocks;
}

/** The blocks of every documentation file (`documentationFiles`), in order. */
export function documentationBlocks(root = '.') {
  return documentationFiles(root).flatMap((file) => codeBlocks(readFileSync(`${root}/${file}`, 'utf8'), file));
}

/** An html block split into its markup and its one inline module script. */
export function splitHtml(code) {
  const script = /<script type="module">([\s\S]*?)<\/script>/.exec(code);
  if (!script) throw new Error('an html block without <script type="module">');
  return { markup: code.replace(script[0], '').trim(), script: script[1] };
}

/**
 * The block's script as a module a page can import from a blob: URL. The package's
 * specifiers (and the scene's other `rewrites`) become absolute URLs on `origin`;
 * `given` runs first (the names the block takes from the text around it) and `after`
 * last, its value kept as `window.readmeOut` for the test to read.
 */
export function moduleSource(script, { origin, rewrites = [], given = '', after = '' }) {
  const specifiers = [
    ["'lectern/chat'", `'${origin}/pkg/chat/index.js'`],
    ["'lectern/wllama'", `'${origin}/pkg/lectern_wllama.js'`],
    ["'lectern/prompt-api'", `'${origin}/pkg/lectern_prompt_api.js'`],
    ["'lectern/local'", `'${origin}/pkg/lectern_local_provider.js'`],
    ["'lectern'", `'${origin}/pkg/lectern.js'`],
    ["'@wllama/wllama'", `'${origin}/wllama/index.js'`],
  ];
  let body = script;
  for (const [from, to] of [...specifiers, ...rewrites]) {
    body = body.split(from).join(to);
  }
  return [
    `import readmeInit, * as readme from '${origin}/pkg/lectern.js';`,
    'await readmeInit();',
    given,
    body,
    `window.readmeOut = await (async () => { ${after} })();`,
  ].join('\n');
}
