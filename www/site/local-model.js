// The in-browser model: the server's GGUF run by Lectern's own decoder in a Worker (through
// lectern/local), as a Lectern `custom` provider. One runs at a time.

/** The running model, stopped when the model changes. */
let running = null;
/** Aborts the read-ahead in progress (when another starts, or the model stops). */
let aheadAbort = null;

/**
 * Starts loading `model` (`{ url, name }` from /config.json) and resolves with its provider; the
 * load's progress goes to the `status` element. `useCache`: keep the GGUF in the Cache API, so
 * the next visit loads it offline.
 */
export async function localModelProvider(model, { status, useCache = true }) {
  const { LocalModel, localProvider } = await import('/pkg/lectern_local_provider.js');
  await stopLocalModel();
  const local = new LocalModel(new URL(model.url, location.href).href, {
    cacheName: useCache ? undefined : null, // undefined: lectern/local's own cache
    // Two threads or more when the site is served cross-origin isolated (scripts/serve.mjs is).
    onProgress: ({ phase, loaded, total, threads }) => {
      if (phase === 'threads') return;
      const share = phase === 'download' && total ? ` ${Math.round((100 * loaded) / total)} %` : '';
      const on = threads > 1 ? ` on ${threads} threads` : '';
      status.textContent = phase === 'ready' ? `${model.name} is ready, in this page${on}` : `Loading ${model.name}: ${phase}${share}`;
    },
  });
  local.ready.catch((error) => {
    status.textContent = `${model.name} did not load: ${error.message}`;
  });
  running = local;
  return localProvider(local, { model: model.name, maxTokens: 200 });
}

/**
 * Reads `systemPrompt` (Lectern's `systemPrompt` of the open conversation) into the running
 * model's prefix cache while the reader reads, so that a question reads only its passages and
 * itself; the read-ahead before it is aborted (the reader turned the page). Nothing without a
 * running model; resolves with the model's `read` message (null when aborted or no model runs).
 */
export async function readAhead(systemPrompt) {
  if (!running) return null;
  aheadAbort?.abort();
  const controller = new AbortController();
  aheadAbort = controller;
  const { chatmlPrompt } = await import('/pkg/lectern_local_provider.js');
  await running.ready;
  return running.prefill(chatmlPrompt([{ role: 'system', content: systemPrompt }]), { signal: controller.signal });
}

/** The threads the running model runs on, once it has loaded (else `null`). */
export function localModelThreads() {
  return running?.threads ?? null;
}

/** Stops the in-browser model, if one runs. */
export async function stopLocalModel() {
  aheadAbort?.abort();
  aheadAbort = null;
  running?.close();
  running = null;
}
