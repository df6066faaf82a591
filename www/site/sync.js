// Sync across devices (lectern/sync), when the server offers a sync server (/config.json's
// `sync`): "Sync as <name>" asks the sync server's demo route for a token, then the open Lectern
// follows the reader's synced document — its conversations (the chat shows another device's
// messages) and its books' pages (the reader turns to where another device left it). The name is
// kept in localStorage, and the next visit signs in again by itself. A book is the same book on
// every device through its id, a hash of its file (open-book.js). The sync module loads only once
// the reader signs in.

const USER_KEY = 'lectern-site-sync-user';

/**
 * The site's sync: `follow(lectern)` after every Lectern.open (the follower of the closed instance
 * is closed first), `setPage(bookId, page)` after every page turned here. `onConversation(id)` and
 * `onPage(bookId, page)` hear what another device changed; `onStatus(text)` what to show.
 */
export function createSync(config, { onConversation, onPage, onStatus }) {
  let user = config ? localStorage.getItem(USER_KEY) : null;
  let token = null;
  let follower = null;
  let following = Promise.resolve();

  async function signIn(name) {
    const origin = config.url.replace(/^ws/, 'http');
    const response = await fetch(`${origin}/demo/token`, { method: 'POST', body: JSON.stringify({ user: name }) });
    const answer = await response.json();
    if (!response.ok) throw Object.assign(new Error(answer.error ?? `the sync server answered ${response.status}`), { name: 'SyncError' });
    user = answer.user;
    token = answer.token;
    localStorage.setItem(USER_KEY, user);
  }

  async function followNow(lectern) {
    await follower?.close().catch(() => {});
    follower = null;
    if (!lectern || !user) return;
    if (!token) await signIn(user);
    const { followSync } = await import('/pkg/lectern_sync_client.js');
    follower = await followSync(lectern, {
      url: config.url,
      user,
      token,
      onStatus: (status) => onStatus(`Synced as ${user}: ${status}`),
      onSynced: (change) => (change.conversationId ? onConversation(change.conversationId) : onPage(change.bookId, change.page)),
    });
    onStatus(`Synced as ${user}: ${follower.client.status}`);
  }

  return {
    /** Whether this site offers sync at all. */
    offered: Boolean(config),
    /** The name signed in, or null. */
    get user() {
      return user;
    },
    /** Signs in as `name` and follows `lectern`. */
    async signIn(name, lectern) {
      await signIn(name);
      return this.follow(lectern);
    },
    /** Follows `lectern` (when signed in), one switch at a time. */
    follow(lectern) {
      following = following.catch(() => {}).then(() => followNow(lectern));
      return following;
    },
    /** Records the page turned to in `bookId`, for the other devices. */
    setPage(bookId, page) {
      follower?.client.setPosition(bookId, page);
    },
    /** The follower, for tests and the console. */
    get follower() {
      return follower;
    },
  };
}
