// The ingestion progress bar: `addBook`'s onProgress ({ phase, done, total }) shown as it comes;
// and a status line for what fills in behind the reader once the book is open (MiniLM's vectors,
// a big book's index), from the instance's `ingestProgress` / `ingestFailed` events.
const $ = (selector) => document.querySelector(selector);

const PHASES = { chunking: 'Cutting pages and passages', embedding: 'Embedding passages', indexing: 'Indexing' };

/** Shows the bar for `title`; returns the onProgress callback and `done()` to hide it. */
export function startProgress(title) {
  const bar = $('#progress-bar');
  $('#progress').hidden = false;
  bar.value = 0;
  $('#progress-label').textContent = `Reading “${title}”…`;
  return {
    onProgress({ phase, done, total }) {
      bar.value = total ? done / total : 0;
      bar.dataset.phase = phase;
      $('#progress-label').textContent = `${PHASES[phase] ?? phase}: ${done} of ${total}`;
    },
    done() {
      $('#progress').hidden = true;
    },
  };
}

const BEHIND = {
  loading: ({ done, total }) => `Fetching the search model${total ? `: ${Math.round((100 * done) / total)} %` : '…'}`,
  embedding: ({ done, total }) => `Preparing search by meaning: ${done} of ${total} passages`,
  indexing: () => 'Indexing passages',
};

/** An instance's event (`onEvent`): the status line of the work behind the reader. */
export function showBackgroundWork(event) {
  const line = $('#search-status');
  if (event.type === 'ingestFailed') {
    line.hidden = false;
    line.textContent = `Search by meaning is not available (${event.name}: ${event.message}); searching by words.`;
  } else if (event.type === 'ingestProgress' && event.phase !== 'chunking') {
    const finished = event.phase !== 'loading' && event.done === event.total;
    line.hidden = finished;
    line.textContent = finished ? '' : `${BEHIND[event.phase]?.(event) ?? event.phase} (searching by words meanwhile)`;
  }
}
