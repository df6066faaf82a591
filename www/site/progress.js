// The ingestion progress bar: `addBook`'s onProgress ({ phase, done, total }) shown as it comes.
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
