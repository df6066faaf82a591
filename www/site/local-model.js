// The in-browser model: the server's GGUF run by wllama in this page (through
// lectern/wllama), as a Lectern `custom` provider. One runs at a time.

/** The running wllama, stopped when the model changes. */
let wllama = null;

/**
 * Loads `model` (`{ url, name }` from /config.json) and resolves with its provider; the load's
 * progress goes to the `status` element. `useCache`: keep the GGUF in wllama's cache, so the
 * next visit loads it offline.
 */
export async function localModelProvider(model, { status, useCache = true }) {
  const [{ LoggerWithoutDebug, Wllama }, { loadWllamaModel, wllamaProvider }] = await Promise.all([
    import('/wllama/index.js'),
    import('/pkg/lectern_wllama.js'),
  ]);
  await stopLocalModel();
  wllama = new Wllama(
    { default: '/wllama/wasm/wllama.wasm' },
    { logger: LoggerWithoutDebug, suppressNativeLog: true, allowOffline: true },
  );
  wllama.setCompat?.(null); // never fetch wllama's fallback build from its CDN
  const ready = loadWllamaModel(wllama, new URL(model.url, location.href).href, {
    n_threads: 1,
    n_ctx: 2048,
    useCache,
    onProgress: ({ phase, loaded, total }) => {
      const share = phase === 'download' && total ? ` ${Math.round((100 * loaded) / total)} %` : '';
      status.textContent = phase === 'ready' ? `${model.name} is ready, in this page` : `Loading ${model.name}: ${phase}${share}`;
    },
  });
  return wllamaProvider(wllama, { model: model.name, ready, maxTokens: 200 });
}

/** Stops the in-browser model, if one runs. */
export async function stopLocalModel() {
  await wllama?.exit();
  wllama = null;
}
