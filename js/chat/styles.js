// The widget's style sheet: one constructed CSSStyleSheet shared by every instance.
// Theme through custom properties; restyle pieces through ::part (see docs/widget.md's list).

const CSS = `
:host { display: block; font: var(--lectern-font, 15px/1.5 system-ui, sans-serif); color: var(--lectern-fg, #1d1d1f);
  background: var(--lectern-bg, #fff); border-radius: var(--lectern-radius, 10px); --gap: var(--lectern-gap, 0.6rem); }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.frame { display: flex; flex-direction: column; gap: var(--gap); padding: var(--gap); height: 100%; }
.transcript { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: var(--gap);
  overflow-y: auto; flex: 1 1 auto; min-height: 6rem; }
.message { padding: 0.5rem 0.75rem; border-radius: var(--lectern-radius, 10px); max-width: 100%; overflow-wrap: anywhere; }
.message.user { background: var(--lectern-user-bg, #e8f0fe); align-self: flex-end; white-space: pre-wrap; }
.message.assistant { background: var(--lectern-assistant-bg, #f4f4f5); }
.message.assistant[aria-busy="true"] .body::after { content: '▍'; opacity: 0.6; }
.message.interrupted .note, .usage { font-size: 0.8em; opacity: 0.75; }
.sentence.unsupported { text-decoration: underline wavy var(--lectern-error, #b91c1c); text-underline-offset: 0.2em; }
.not-in-book { display: inline-block; white-space: nowrap; padding: 0 0.3em; border-radius: 0.3em; font-size: 0.75em; font-weight: 600; background: #fee2e2; color: var(--lectern-error, #b91c1c); }
.cite { padding: 0 0.25rem; border: 0; background: none; font-size: 0.8em; color: var(--lectern-accent, #2563eb); text-decoration: underline dotted; vertical-align: super; }
.quoted-note { margin: 0.3rem 0 0; font-size: 0.8em; opacity: 0.8; font-style: italic; }
.quoted-answer blockquote { margin: 0.25rem 0; padding-left: 0.6rem; border-left: 3px solid #d4d4d8; }
.not-found { margin: 0.3rem 0 0; font-size: 0.8em; font-weight: 600; color: var(--lectern-error, #b91c1c); }
.sources, .sources ul { display: flex; gap: 0.25rem; align-items: baseline; }
.sources { margin-top: 0.4rem; font-size: 0.8em; }
.sources ul { flex: 1; flex-wrap: wrap; list-style: none; margin: 0; padding: 0; }
.source + .source::before { content: '·'; margin-right: 0.25rem; opacity: 0.6; }
.source.open { flex-basis: 100%; } .source.open::before, .source.open + .source::before { content: none; }
.source-toggle { padding: 0 0.2rem; border: 0; background: none; color: var(--lectern-accent, #2563eb); text-decoration: underline dotted; }
.source-go { padding: 0.1rem 0.5rem; }
.source-text blockquote { margin: 0.25rem 0; padding-left: 0.6rem; border-left: 3px solid #d4d4d8; white-space: pre-wrap; max-height: 12rem; overflow: auto; }
.source-text .via { opacity: 0.75; }
.body p { margin: 0 0 0.5em; white-space: pre-wrap; } .body p:last-child { margin-bottom: 0; }
.body pre { background: #1f2328; color: #f0f0f0; padding: 0.5rem; border-radius: 6px; overflow-x: auto; }
.body code { font-family: ui-monospace, monospace; font-size: 0.92em; }
a { color: var(--lectern-accent, #2563eb); }
.tool-card, .approval-card { border: 1px solid #d4d4d8; border-radius: var(--lectern-radius, 10px); padding: 0.4rem 0.75rem; font-size: 0.9em; }
.tool-card pre, .approval-card pre { white-space: pre-wrap; margin: 0.25rem 0; max-height: 12rem; overflow: auto; }
.approval-card { border-color: var(--lectern-accent, #2563eb); }
.approval-card:focus { outline: 2px solid var(--lectern-accent, #2563eb); outline-offset: 2px; }
.approval-card label { display: block; margin-top: 0.3rem; }
.approval-card input.reason { width: 100%; font: inherit; }
.approval-card textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 0.9em; }
.approval-card .description { margin: 0.2rem 0; color: #52525b; }
.approval-card dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.6rem; margin: 0.3rem 0; }
.approval-card dl.fields dt { font-weight: 600; }
.approval-card dl.fields dd { margin: 0; overflow-wrap: anywhere; }
.approval-card details.raw { margin: 0.3rem 0; }
.reviews { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
.reviews:empty { display: none; }
.review-banner { border: 1px solid #d97706; background: #fffbeb; border-radius: var(--lectern-radius, 10px); padding: 0.4rem 0.75rem; font-size: 0.9em; }
.review-banner label { display: block; margin-top: 0.3rem; }
.review-banner input.note { width: 100%; font: inherit; }
.review-banner .run-log { margin: 0.3rem 0; }
.review-banner .run-log > summary { cursor: pointer; }
.approval-controls { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; font-size: 0.85em; }
.problem, .error { color: var(--lectern-error, #b91c1c); }
.message.error { background: #fef2f2; }
.interrupted-turn { border: 1px dashed #a1a1aa; border-radius: var(--lectern-radius, 10px); padding: 0.4rem 0.75rem; font-size: 0.9em; }
.interrupted-turn p { margin: 0 0 0.3rem; }
.row { display: flex; gap: 0.4rem; flex-wrap: wrap; align-items: center; }
button { font: inherit; padding: 0.3rem 0.8rem; border-radius: 6px; border: 1px solid #a1a1aa; background: #fafafa; cursor: pointer; }
button.primary, [part~="send"] { background: var(--lectern-accent, #2563eb); color: #fff; border-color: transparent; }
button:disabled { opacity: 0.5; cursor: default; }
.composer { display: flex; gap: 0.4rem; align-items: flex-end; position: relative; }
.composer textarea { flex: 1; font: inherit; padding: 0.4rem; border-radius: 6px; border: 1px solid #a1a1aa; resize: vertical; min-height: 2.6rem; }
.mentions { position: absolute; bottom: 100%; left: 0; margin: 0; padding: 0.2rem; list-style: none; background: var(--lectern-bg, #fff);
  border: 1px solid #a1a1aa; border-radius: 6px; max-height: 10rem; overflow-y: auto; min-width: 12rem; }
.mentions li { padding: 0.2rem 0.5rem; border-radius: 4px; cursor: pointer; }
.mentions li[aria-selected="true"] { background: var(--lectern-user-bg, #e8f0fe); }
.footer { display: flex; justify-content: space-between; gap: 0.5rem; font-size: 0.8em; opacity: 0.85; }
.settings form { display: grid; gap: 0.4rem; padding: 0.4rem 0; }
.settings label { display: grid; gap: 0.1rem; }
.working-state pre { white-space: pre-wrap; font-size: 0.85em; margin: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

let sheet = null;

/** The shared sheet (built on first use). */
export function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}
