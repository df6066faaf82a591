// Changes that tabs on one database tell each other (a BroadcastChannel named after the database):
// a `workingState`, `finish` or `runFinished` event of one instance reaches every other instance's
// listeners with `remote: true`. No BroadcastChannel (an old engine): nothing is shared, nothing fails.

/** The events other tabs hear: what changed in the store (a working state, an answer, a headless run). */
const SHARED = new Set(['workingState', 'finish', 'runFinished']);

/** The channel of database `dbName`, handing each change another tab posts to `deliver`; `null` without BroadcastChannel. */
export function openChanges(dbName, deliver) {
  if (typeof BroadcastChannel !== 'function') return null;
  const channel = new BroadcastChannel(`lectern-changes:${dbName}`);
  channel.onmessage = ({ data }) => {
    if (data && typeof data === 'object' && SHARED.has(data.type) && typeof data.conversationId === 'string') {
      deliver({ ...data, remote: true });
    }
  };
  return channel;
}

/** Tells the other tabs of `event` (a plain, cloneable event object). */
export function postChange(channel, event) {
  try {
    channel?.postMessage(event);
  } catch {
    // A closed channel or an event that cannot be cloned: the other tabs read the store later.
  }
}

/** Stops hearing and telling. */
export function closeChanges(channel) {
  channel?.close();
}
