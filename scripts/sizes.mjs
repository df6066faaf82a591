// Prints the raw, gzip (level 9) and brotli (quality 11) sizes of every file
// package.json ships ("files"), as a markdown table; with a path argument it
// also writes the table there; `--figures` prints `npm run bench`'s figure
// lines instead. `node scripts/sizes.mjs [out.md | --figures]`
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every file under `path` (a file, a folder, or `dir/prefix*suffix`), as paths relative to the package root. */
function filesUnder(path) {
  if (path.includes('*')) return filesMatching(path);
  const full = join(root, path);
  if (!statSync(full, { throwIfNoEntry: false })) throw new Error(`${path} is missing: run scripts/build.sh`);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true })
    .map((name) => join(full, name))
    .filter((name) => statSync(name).isFile())
    .map((name) => relative(root, name))
    .sort();
}

/** The files `dir/prefix*suffix` names (one `*`, in the file name), sorted. */
function filesMatching(pattern) {
  const dir = dirname(pattern);
  const [prefix, suffix] = basename(pattern).split('*');
  return readdirSync(join(root, dir))
    .filter((name) => name.startsWith(prefix) && name.endsWith(suffix))
    .sort()
    .map((name) => join(dir, name));
}

/** Raw, gzip -9 and brotli q11 sizes of the bytes. */
export function sizesOf(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }).length,
  };
}

/** The shipped files with their sizes, and their total. */
export function packageSizes() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const rows = pkg.files.flatMap(filesUnder).map((file) => ({ file, ...sizesOf(readFileSync(join(root, file))) }));
  const total = { file: 'total', raw: 0, gzip: 0, brotli: 0 };
  for (const row of rows) for (const key of ['raw', 'gzip', 'brotli']) total[key] += row[key];
  return { rows, total };
}

const number = (n) => n.toLocaleString('en-US');

/** The sizes as a markdown table. */
export function markdownTable({ rows, total }) {
  const line = (r) => `| ${r.file} | ${number(r.raw)} | ${number(r.gzip)} | ${number(r.brotli)} |`;
  return [
    '| file | raw (bytes) | gzip -9 | brotli q11 |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map((r) => line({ ...r, file: `\`${r.file}\`` })),
    line({ ...total, file: '**total**' }),
  ].join('\n');
}

/** The files `pkg/lectern.js` imports statically (its snippets, the chunks' loader), as `pkg/…` paths. */
function pageImports() {
  const source = readFileSync(join(root, 'pkg/lectern.js'), 'utf8');
  const paths = [...source.matchAll(/^import .* from (['"])\.\/([^'"]+)\1;?$/gm)].map((m) => `pkg/${m[2]}`);
  return new Set(paths);
}

/** The sizes as `TABLE package_sizes` lines for `npm run bench`'s RESULTS.md. */
export function tableLines(sizes) {
  return markdownTable(sizes)
    .split('\n')
    .map((line) => `TABLE package_sizes ${line.replace(/lectern-[0-9a-f]{16}/g, 'lectern-…')}`);
}

/** Figure lines for `npm run bench` (kilobytes of 1,000 bytes). */
export function figureLines({ rows, total }) {
  const wasm = rows.find((r) => r.file === 'pkg/lectern_bg.wasm');
  const ingest = rows.find((r) => r.file === 'pkg/lectern_books_bg.wasm');
  // What a page fetches for its first answer: the page's module and the JS it imports (not the
  // types, not the books module's snippets).
  const imported = pageImports();
  const onLoad = rows.filter((r) => r.file === 'pkg/lectern.js' || r.file === 'pkg/lectern_bg.wasm' || imported.has(r.file));
  const chat = rows.filter((r) => /^pkg\/chat\/.*\.js$/.test(r.file));
  const kb = (n) => n / 1000;
  return [
    `FIGURE wasm_raw chromium ${kb(wasm.raw)}`,
    `FIGURE wasm_gzip chromium ${kb(wasm.gzip)}`,
    `FIGURE wasm_brotli chromium ${kb(wasm.brotli)}`,
    `FIGURE ingest_wasm_gzip chromium ${kb(ingest.gzip)}`,
    `FIGURE page_gzip chromium ${kb(onLoad.reduce((sum, r) => sum + r.gzip, 0))}`,
    `FIGURE package_gzip chromium ${kb(total.gzip)}`,
    `FIGURE chat_gzip chromium ${kb(chat.reduce((sum, r) => sum + r.gzip, 0))}`,
    // A chat page that opens Lectern on the widget's first use loads only the widget (chat_gzip)
    // before it is used; before its first answer, the widget, the page's module and its JS.
    `FIGURE first_answer_gzip chromium ${kb([...onLoad, ...chat].reduce((sum, r) => sum + r.gzip, 0))}`,
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = packageSizes();
  if (process.argv[2] === '--figures') {
    console.log([...figureLines(sizes), ...tableLines(sizes)].join('\n'));
    process.exit(0);
  }
  const table = markdownTable(sizes);
  console.log(table);
  if (process.argv[2]) writeFileSync(process.argv[2], `${table}\n`);
}
