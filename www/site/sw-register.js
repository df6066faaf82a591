// Registers the service worker (offline after the first visit) and offers an update when a new
// one waits: "Update ready — Reload" activates it, never while a turn runs.
const $ = (selector) => document.querySelector(selector);

/** Registers /sw.js; `isBusy()` says whether a turn is running (the update then waits for it). */
export async function registerServiceWorker(isBusy) {
  if (!('serviceWorker' in navigator)) return;
  const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  let updating = false;
  const offer = (worker) => {
    if (!worker || !navigator.serviceWorker.controller) return; // the first install needs no reload
    $('#update').hidden = false;
    $('#update-reload').onclick = async () => {
      while (isBusy()) await new Promise((r) => setTimeout(r, 250));
      updating = true;
      worker.postMessage('skipWaiting');
    };
  };
  offer(registration.waiting);
  registration.addEventListener('updatefound', () => {
    const worker = registration.installing;
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed') offer(worker);
    });
  });
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // Only the update the reader asked for reloads (the first visit's worker claiming the page does not).
    if (!updating) return;
    updating = false;
    location.reload();
  });
}
