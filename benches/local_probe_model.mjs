// The model a hand-run probe of the local decoder reads (benches/local_pkg_ab.mjs,
// benches/local_threads_probe.mjs), with the fixtures its page is served from.
import { basename } from 'node:path';
import { gemmaFixture, localFixtures } from '../tests/js/local/fixtures.mjs';

/**
 * SmolLM2's or Gemma 3's (`which`: 'smollm2' or 'gemma3') fixtures and the URL the page loads the
 * model from: `{ fixtures, gemma, model }`. Without them it prints why and exits (0: a skip).
 */
export function probeModel(which) {
  const fixtures = localFixtures();
  const gemma = gemmaFixture();
  const skip = fixtures.skip ?? (which === 'gemma3' ? gemma.skip : undefined);
  if (skip) {
    console.log(skip);
    process.exit(0);
  }
  const model = which === 'gemma3' ? gemma.url : `/models/${basename(fixtures.model)}`;
  return { fixtures, gemma, model };
}
