// The reading site's app shell, for its service worker (www/sw.js): every URL to precache and
// one hash of their sizes and modification times (the cache's name; a rebuild changes it).
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Files under `dir`, as paths relative to it with `/` separators; [] when it does not exist. */
async function files(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)).split(sep).join('/'))
    .sort();
}

/** Whether a file of pkg/ runs in the page or its worker (types and package files do not). */
const shipped = (path) => /\.(js|wasm)$/.test(path) && !path.endsWith('.d.ts');

/** The shell's URLs: `/`, www/ (sw.js aside), pkg/'s JS and wasm, the sample, wllama's files if offered. */
export async function shellUrls(root, { wllama = null, thursday = false } = {}) {
  const www = (await files(join(root, 'www'))).filter((p) => p !== 'sw.js').map((p) => `/${p}`);
  const pkg = (await files(join(root, 'pkg'))).filter(shipped).map((p) => `/pkg/${p}`);
  const local = wllama ? (await files(wllama)).filter(shipped).map((p) => `/wllama/${p}`) : [];
  return ['/', ...www, ...pkg, ...local, ...(thursday ? ['/samples/thursday.txt'] : [])];
}

/** The hash of the shell's files as they are now (size and mtime, not contents: cheap per request). */
export async function shellHash(root, urls, { wllama = null, thursday = null } = {}) {
  const hash = createHash('sha256');
  for (const url of urls) {
    let path = join(root, 'www', url);
    if (url === '/') path = join(root, 'www/index.html');
    else if (url.startsWith('/pkg/')) path = join(root, url);
    else if (url.startsWith('/wllama/') && wllama) path = join(wllama, url.slice('/wllama/'.length));
    else if (url === '/samples/thursday.txt' && thursday) path = thursday;
    const info = await stat(path).catch(() => null);
    hash.update(`${url} ${info?.size} ${info?.mtimeMs}\n`);
  }
  hash.update((await stat(join(root, 'www/sw.js'))).mtimeMs.toString());
  return hash.digest('hex').slice(0, 16);
}
