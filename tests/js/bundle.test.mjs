// exportBook / importBook in headless Chromium against the built package: a
// book exported from one database and imported into another (after a
// reload) is the same book — the same search results, its index read from
// the shipped snapshot, the bundle re-exported byte for byte — and a bundle
// that is cut, altered or not a bundle is a ConfigError that stores nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAndChromium } from './browser.mjs';

const running = demoAndChromium({ chunkDelayMs: 0 });

async function lecternPage() {
  const page = await running.browser.newPage();
  await page.goto(`${running.demo.url}blank`);
  await page.evaluate(async (baseUrl) => {
    const { default: init, Lectern } = await import('/pkg/lectern.js');
    await init();
    window.open = (dbName) =>
      Lectern.open({
        dbName,
        provider: { kind: 'openai', baseUrl, model: 'mock', apiKey: 'k' },
        embedder: { kind: 'hashed' },
        retrieval: { chunkChars: 100, overlapChars: 0, indexMinChunks: 256 },
      });
    // Bundles cross to Node as base64 text: a 1.5 MB array of numbers through the DevTools
    // protocol (and a deep comparison of it) took most of a minute.
    window.toBase64 = (bytes) => {
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(binary);
    };
    window.fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    window.attempt = async (work) => {
      try {
        return { ok: await work() };
      } catch (e) {
        return { error: { name: e.name, message: e.message } };
      }
    };
  }, `${running.demo.mockUrl}/v1`);
  return page;
}

test('a book exported, then imported into another database after a reload, is the same book', async () => {
  const page = await lecternPage();
  const exported = await page.evaluate(async () => {
    const lectern = await window.open('bundle-source');
    const words = 'lantern harbour anarchist poet sunday council garden balloon'.split(' ');
    const text = Array.from({ length: 700 }, (_, p) => `The ${words[p % 8]} met the ${words[(p * 3) % 8]} by paragraph ${p}.`).join('\n\n');
    const book = await lectern.addBook({ title: 'Bundled', text });
    for (let i = 0; i < 600 && (await lectern.indexSource(book.id)) !== 'built'; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await lectern.setCurrentPage(book.id, 7);
    const hits = await lectern.search('anarchist harbour', { k: 8, maxPage: 30 });
    const bundle = await lectern.exportBook(book.id);
    await lectern.close();
    return { id: book.id, hits, bundle: window.toBase64(bundle), source: await (await window.open('bundle-source')).indexSource(book.id) };
  });
  assert.equal(exported.source, 'snapshot');
  await page.reload();
  await page.close();
  const next = await lecternPage();
  const imported = await next.evaluate(async ({ bundle, id }) => {
    const lectern = await window.open('bundle-target');
    const book = await lectern.importBook(window.fromBase64(bundle).buffer);
    const out = {
      book,
      hits: await lectern.search('anarchist harbour', { k: 8, maxPage: 30 }),
      source: await lectern.indexSource(id),
      again: window.toBase64(await lectern.exportBook(id)),
      twice: await window.attempt(() => lectern.importBook(window.fromBase64(bundle))),
    };
    await lectern.close();
    return out;
  }, exported);
  assert.equal(imported.book.id, exported.id);
  assert.equal(imported.book.currentPage, 7);
  assert.deepEqual(imported.hits, exported.hits, 'the same results and scores');
  assert.equal(imported.source, 'snapshot', 'the shipped index, not rebuilt');
  assert.equal(imported.again, exported.bundle, 'byte for byte');
  assert.equal(imported.twice.error?.name, 'ConfigError');
  await next.close();
});

test('a bundle that is cut, altered or not a bundle stores nothing', async () => {
  const page = await lecternPage();
  const out = await page.evaluate(async () => {
    const source = await window.open('bundle-bad-source');
    const book = await source.addBook({ title: 'Short', text: 'One page of text. Two sentences.' });
    const bundle = await source.exportBook(book.id);
    await source.close();
    const lectern = await window.open('bundle-bad-target');
    const altered = bundle.slice();
    altered[40] ^= 1;
    const results = {
      cut: await window.attempt(() => lectern.importBook(bundle.slice(0, bundle.length - 9))),
      altered: await window.attempt(() => lectern.importBook(altered)),
      text: await window.attempt(() => lectern.importBook(new TextEncoder().encode('not a bundle at all'))),
      string: await window.attempt(() => lectern.importBook('LCTNBOOK')),
      missing: await window.attempt(() => lectern.exportBook('no-such-book')),
    };
    results.books = (await lectern.books()).length;
    await lectern.close();
    return results;
  });
  for (const kind of ['cut', 'altered', 'text', 'string']) {
    assert.equal(out[kind].error?.name, 'ConfigError', `${kind}: ${JSON.stringify(out[kind])}`);
  }
  assert.equal(out.missing.error?.name, 'NotFoundError');
  assert.equal(out.books, 0, 'nothing stored');
  await page.close();
});
