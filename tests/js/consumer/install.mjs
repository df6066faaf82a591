// The package as an npm user gets it: `npm pack` of the repository, installed
// into a fresh app directory made from tests/js/consumer/app/. The tarball has
// no dependencies, so the install needs no registry.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** Packs the repository (`npm pack --json`); resolves with the tarball's path and npm's file list. */
export function packRepository() {
  const destination = mkdtempSync(join(tmpdir(), 'lectern-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: repo, encoding: 'utf8' });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return { tarball: join(destination, info.filename), files: info.files.map((f) => f.path) };
}

/** A temp app directory with the app's files and `tarball` installed as `lectern`. */
export function installConsumerApp(tarball) {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-consumer-'));
  cpSync(fileURLToPath(new URL('app/', import.meta.url)), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return dir;
}

/** `tsc --strict` of the app's types-check.ts under `moduleResolution`; resolves with tsc's output ('' when clean). */
export function typeCheck(dir, moduleResolution) {
  const module = moduleResolution === 'bundler' ? 'ESNext' : 'Node16';
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution,
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    },
    files: ['src/types-check.ts'],
  };
  const path = join(dir, `tsconfig.${moduleResolution}.json`);
  writeFileSync(path, JSON.stringify(config));
  try {
    execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', path], { cwd: dir, encoding: 'utf8' });
    return '';
  } catch (error) {
    return `${error.stdout}${error.stderr}` || String(error);
  }
}
