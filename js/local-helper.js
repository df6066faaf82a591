// A helper thread of Lectern's threaded decoder (`lectern_local_helper.js`, started by
// lectern_local_worker.js on a cross-origin isolated page): given the compiled
// `lectern_local_threads_bg.wasm`, its shared memory and the decoder's pool handle, it serves the
// decoder's matrix products until its Worker ends. Messages out: `serving`, or `failed` (the
// decoder then runs every product alone).
import { initSync, serveDecoder, helperFailed } from './lectern_local_threads.js';

onmessage = ({ data: { module, memory, handle } }) => {
  try {
    initSync({ module, memory });
  } catch (error) {
    postMessage({ type: 'failed', message: String(error?.message ?? error) });
    return;
  }
  postMessage({ type: 'serving' });
  try {
    serveDecoder(handle);
  } catch (error) {
    helperFailed(handle);
    postMessage({ type: 'failed', message: String(error?.message ?? error) });
  }
};
