// Every ```js and ```html block of README.md and docs/*.md runs as written, in headless Chromium
// against the built package and the mock model server, each in a fresh browser
// context: the names a block takes from the prose around it come from its scene
// (tests/js/readme-scenes.mjs), which also scripts the model and checks what the
// block did. A block no scene names, or a scene whose block is gone (or has left
// the scene's `file`), fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { demoAndChromium } from './browser.mjs';
import { documentationBlocks, moduleSource, splitHtml } from './readme-blocks.mjs';
import { SCENES } from './readme-scenes.mjs';
import { fetched } from './local/fixtures.mjs';

/** SmolLM2's GGUF (`value`), or the reason there is none (`skip`). */
const model = fetched('LECTERN_SMOLLM2', 'fetch-smollm2.sh');
const running = demoAndChromium({ chunkDelayMs: 0, localModel: model.value ?? null, minilm: process.env.LECTERN_MINILM_DIR });
const blocks = documentationBlocks();

test('every code block of README.md and docs/*.md has exactly one scene, and every scene a block in its file', () => {
  assert.ok(blocks.some((b) => b.file === 'README.md'), 'README.md has a code block');
  for (const block of blocks) {
    const scenes = SCENES.filter((s) => block.code.includes(s.marker));
    assert.equal(scenes.length, 1, `${block.file}:${block.line}: ${scenes.length} scenes match this block`);
  }
  for (const scene of SCENES) {
    const found = blocks.filter((b) => b.code.includes(scene.marker));
    assert.equal(found.length, 1, `${found.length} blocks for the scene "${scene.name}"`);
    assert.equal(found[0].file, scene.file, `the scene "${scene.name}" names its block's file`);
  }
});

/** Why `scene` cannot run here, or null. */
function missing(scene) {
  if (scene.needs?.includes('localModel') && !running.demo.localModel) {
    return model.skip ?? 'SKIPPED: @wllama/wllama is not installed';
  }
  if (scene.needs?.includes('minilm') && !running.demo.embedder) return 'SKIPPED: no MiniLM files (scripts/fetch-minilm.sh)';
  return null;
}

for (const scene of SCENES) {
  const block = blocks.find((b) => b.code.includes(scene.marker));
  test(`${block?.file ?? scene.file}:${block?.line ?? '?'} ${scene.name}`, { timeout: 120000 }, async (t) => {
    assert.ok(block, `the block is gone from ${scene.file}`);
    const why = missing(scene);
    if (why) return t.skip(why);
    const session = `readme-${randomUUID().slice(0, 8)}`;
    const mockSession = `${running.demo.mockUrl}/__mock/${session}`;
    const context = await running.browser.newContext({ serviceWorkers: 'block' });
    const ctx = {
      context,
      origin: running.demo.url.replace(/\/$/, ''),
      mock: `${running.demo.mockUrl}/s/${session}/v1`,
      localModelUrl: running.demo.localModel && `/local-model/${running.demo.localModel}`,
      requests: () => fetch(`${mockSession}/requests`).then((r) => r.json()),
    };
    try {
      if (scene.turns) {
        const queued = await fetch(`${mockSession}/script`, { method: 'POST', body: JSON.stringify({ turns: scene.turns }) });
        assert.equal(queued.status, 200);
      }
      await scene.before?.(ctx);
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      await page.goto(`${ctx.origin}/blank.html`);
      const { markup, script } = block.lang === 'html' ? splitHtml(block.code) : { markup: '', script: block.code };
      const source = moduleSource(script, {
        origin: ctx.origin,
        rewrites: scene.rewrites?.(ctx),
        given: scene.given?.(ctx),
        after: scene.after,
      });
      const ran = await page.evaluate(
        async ({ markup, source }) => {
          document.body.innerHTML = markup;
          const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
          try {
            await import(url);
            return { out: window.readmeOut };
          } catch (e) {
            return { error: `${e?.name}: ${e?.message}\n${e?.stack ?? ''}` };
          }
        },
        { markup, source },
      );
      assert.equal(ran.error, undefined, `${block.file}:${block.line} threw`);
      await scene.drive?.(page, ctx);
      await scene.check?.(ran.out, ctx);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
