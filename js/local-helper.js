// A helper thread of Lectern's threaded decoder (`lectern_local_helper.js`, started by
// lectern_local_worker.js on a cross-origin isolated page): given the compiled
// `lectern_local_threads_bg.wasm`, its shared memory, the decoder's pool handle, the address of its
// dead mask and its slot, it serves the decoder's products and attention until its Worker ends.
// Messages out: `serving`, or `failed` (if its wasm traps it sets its slot's bit of the dead mask
// first, so the decoder runs that job again, and every later one, alone).
import { initSync, serveDecoder } from './lectern_local_threads.js';

const failed = (error) => postMessage({ type: 'failed', message: String(error?.message ?? error) });

onmessageerror = () => failed('the decoder could not be received');

onmessage = ({ data: { module, memory, handle, deadMask, slot } }) => {
  try {
    initSync({ module, memory });
  } catch (error) {
    failed(error);
    return;
  }
  postMessage({ type: 'serving' });
  try {
    serveDecoder(handle, slot);
    failed('the decoder stopped');
  } catch (error) {
    // On a trap only (a refused handle ran no part); an atomic, not a call into the instance.
    if (error instanceof WebAssembly.RuntimeError) Atomics.or(new Int32Array(memory.buffer), deadMask >>> 2, 1 << slot);
    failed(error);
  }
};
