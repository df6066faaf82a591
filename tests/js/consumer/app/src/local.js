// A consumer's page of lectern/local, imported by package name: a LocalModel on two threads asked
// for a model file that is not there. Its Worker (bundled) must start and instantiate the threaded
// build (its wasm found through the bundle), then fail on the missing file; the outcome goes to
// `window.consumerResult` for the test.
import { LocalModel } from 'lectern/local';

async function run() {
  const notes = [];
  const model = new LocalModel(new URL('./missing.gguf', location.href), {
    cacheName: null,
    threads: 2,
    onProgress: (progress) => progress.phase === 'threads' && notes.push(progress.message),
  });
  try {
    await model.ready;
    return { error: 'a missing model loaded', notes };
  } catch (error) {
    return { failure: `${error.name}: ${error.message}`, notes, isolated: crossOriginIsolated };
  } finally {
    model.close();
  }
}

run().then(
  (result) => (window.consumerResult = result),
  (error) => (window.consumerResult = { error: `${error?.name}: ${error?.message}` }),
);
