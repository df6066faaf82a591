// The page's module starts lectern/sync's follower (lectern_sync_follow.js, shipped at the package
// root beside lectern.js) when Lectern.open is given `sync`: a page without it never downloads the
// sync module. wasm-bindgen copies this file to pkg/snippets/lectern-<hash>/src/wasm/page/host/:
// the URL below climbs back to pkg/ (a literal, for bundlers).

/** What is wrong with `sync` (a `ConfigError`'s message), or null: checked before anything opens. */
export function syncProblem(sync) {
  if (typeof sync !== 'object' || Array.isArray(sync)) return 'sync must be { url, user, token, device? }';
  const extra = Object.keys(sync).find((key) => !['url', 'user', 'token', 'device'].includes(key));
  if (extra) return `sync has an unknown field \`${extra}\`: it takes url, user, token and device`;
  if (typeof sync.url !== 'string' || !/^wss?:\/\//.test(sync.url)) return "sync.url must be the sync server's ws:// or wss:// URL";
  for (const key of ['user', 'token']) {
    if (typeof sync[key] !== 'string' || !sync[key]) return `sync.${key} must be a non-empty string`;
  }
  if (sync.device !== undefined && (typeof sync.device !== 'string' || !sync.device)) return 'sync.device, when given, must be a non-empty string';
  return null;
}

/**
 * Loads lectern/sync and makes `lectern` follow the document of `options` (`url`, `user`, `token`,
 * `device`); its status and what it changes here are `emit`ted as `syncStatus` and `synced` events.
 * Resolves with the follower once both ways are done for what is there now.
 */
export async function startSync(lectern, { url, user, token, device }, emit) {
  const { followSync } = await import('../../../../../../lectern_sync_follow.js');
  return followSync(lectern, {
    url,
    user,
    token,
    device,
    onStatus: (status) => emit({ type: 'syncStatus', status }),
    onSynced: (change) => emit({ type: 'synced', ...change }),
  });
}
