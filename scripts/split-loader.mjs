// Writes wasm-split-cli's chunk loader (__wasm_split.js) into the package with
// one change: a chunk served without `Content-Type: application/wasm` (which
// WebAssembly.instantiateStreaming refuses) or with an HTTP error status is
// handled as wasm-bindgen's own loader handles lectern_bg.wasm: instantiated
// from its bytes, or refused with the status. Fails when the loader's shape
// changed, so a new wasm-split-cli cannot slip past it.
// `node scripts/split-loader.mjs <generated __wasm_split.js> <out>`
import { readFileSync, writeFileSync } from 'node:fs';

const [from, to] = process.argv.slice(2);
const generated = readFileSync(from, 'utf8');
const streaming = 'WebAssembly.instantiateStreaming(src, imports)';
const chunks = generated.split(streaming).length - 1;
if (chunks === 0) {
  console.error(`${from}: no "${streaming}" to replace; wasm-split-cli's loader changed`);
  process.exit(1);
}
const helper = `
/** Instantiates a chunk from its response: streaming when served as wasm, else from its bytes. */
async function instantiateChunk(response, imports) {
  const res = await response;
  if (!res.ok) throw new Error(\`\${res.url}: HTTP \${res.status} \${res.statusText}\`);
  const type = res.headers.get('Content-Type') ?? '';
  if (typeof WebAssembly.instantiateStreaming === 'function' && type.startsWith('application/wasm')) {
    return WebAssembly.instantiateStreaming(res, imports);
  }
  return WebAssembly.instantiate(await res.arrayBuffer(), imports);
}
`;
const lines = generated.replaceAll(streaming, 'instantiateChunk(src, imports)').split('\n');
const firstImport = lines.findIndex((line) => line.startsWith('import '));
lines.splice(firstImport + 1, 0, helper);
writeFileSync(to, lines.join('\n'));
console.log(`${to}: ${chunks} chunk loader(s)`);
