// A helper thread of Lectern's threaded decoder (`lectern_local_helper.js`, started by
// lectern_local_worker.js on a cross-origin isolated page): given the compiled
// `lectern_local_threads_bg.wasm`, its shared memory, the decoder's pool handle and its slot, it
// serves the decoder's products and attention until its Worker ends. Messages out: `serving`, or
// `failed` (if its wasm traps it marks its slot dead in the shared memory first, so the decoder
// runs that job again, and every later one, alone).
import { initSync, serveDecoder, helperDeadFlag } from './lectern_local_threads.js';

const failed = (error) => postMessage({ type: 'failed', message: String(error?.message ?? error) });

onmessageerror = () => failed('the decoder could not be received');

onmessage = ({ data: { module, memory, handle, slot } }) => {
  let dead;
  try {
    initSync({ module, memory });
    dead = helperDeadFlag(handle, slot);
  } catch (error) {
    failed(error);
    return;
  }
  postMessage({ type: 'serving' });
  try {
    serveDecoder(handle, slot);
  } catch (error) {
    // Not a call into the trapped instance: a store the decoder's wait reads.
    Atomics.store(new Int32Array(memory.buffer), dead >>> 2, 1);
    failed(error);
  }
};
