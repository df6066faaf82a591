// Scripts the WebKit driver runs in the page (sent as text with each command):
// event hooks, the slots an evaluation resolves into, and the locator engine
// (CSS that pierces open shadow roots, roles, labels, text).

/** Installs, once per document, the record of page errors, console errors and resource requests. */
export const INSTALL_HOOKS = `
  if (!window.__wdEvents) {
    const events = (window.__wdEvents = []);
    addEventListener('error', (e) => events.push({ type: 'pageerror', message: String(e.message) }));
    addEventListener('unhandledrejection', (e) =>
      events.push({ type: 'pageerror', message: String((e.reason && e.reason.message) || e.reason) }));
    const error = console.error.bind(console);
    console.error = (...parts) => {
      events.push({ type: 'console', level: 'error', text: parts.map(String).join(' ') });
      error(...parts);
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) events.push({ type: 'request', url: entry.name });
    }).observe({ type: 'resource', buffered: true });
  }`;

/** Starts `source` (a function's text) on `arguments[0]`; its outcome lands in slot `arguments[1]`. */
export const startEvaluation = (source) => `
  const [arg, id] = arguments;
  const slots = (window.__wdSlots = window.__wdSlots || {});
  const slot = (slots[id] = { done: false });
  Promise.resolve()
    .then(() => (${source})(arg))
    .then(
      (value) => {
        // As JSON text, with every undefined kept as a marker (JSON would drop it).
        const json = JSON.stringify(value, (key, v) => (v === undefined ? { __wdUndefined: 1 } : v));
        Object.assign(slot, { done: true, json });
      },
      (e) => Object.assign(slot, { done: true, error: { name: e && e.name, message: String((e && e.message) || e), stack: e && e.stack } }),
    );`;

/** Starts `source` on `arguments[0]`; keeps its value in the page as handle `arguments[1]` (Playwright's evaluateHandle). */
export const startHandle = (source) => `
  const [arg, id] = arguments;
  const handles = (window.__wdHandles = window.__wdHandles || {});
  const slots = (window.__wdSlots = window.__wdSlots || {});
  const slot = (slots[id] = { done: false });
  Promise.resolve()
    .then(() => (${source})(arg))
    .then(
      (value) => { handles[id] = value; Object.assign(slot, { done: true, json: JSON.stringify({ __wdHandle: id }) }); },
      (e) => Object.assign(slot, { done: true, error: { name: e && e.name, message: String((e && e.message) || e) } }),
    );`;

/** Reads slot `arguments[0]` (`lost` once the document it ran in is gone) and drains the recorded events. */
export const POLL_EVALUATION = `
  const id = arguments[0];
  const events = window.__wdEvents ? window.__wdEvents.splice(0) : [];
  const slot = window.__wdSlots && window.__wdSlots[id];
  if (!slot) return { lost: true, events };
  if (!slot.done) return { events };
  delete window.__wdSlots[id];
  return { slot, events };`;

/**
 * The locator engine, as a function's text: `(steps) => Element[]`. Steps:
 * `{ css }` (each space-separated part matched at any depth, open shadow
 * roots included, as Playwright's CSS does), `{ role, name, exact }`,
 * `{ label, exact }`, `{ text, exact }`, `{ nth }` (−1: the last).
 */
export const RESOLVE = `(steps) => {
  const norm = (s) => String(s ?? '').replace(/\\s+/g, ' ').trim();
  const matchText = (actual, wanted, exact) =>
    wanted && wanted.regex !== undefined
      ? new RegExp(wanted.regex, wanted.flags).test(norm(actual))
      : exact ? norm(actual) === norm(wanted) : norm(actual).toLowerCase().includes(norm(wanted).toLowerCase());
  const descendants = (scope) => {
    const out = [];
    const walk = (node) => {
      for (const child of node.children || []) {
        out.push(child);
        if (child.shadowRoot) walk(child.shadowRoot);
        walk(child);
      }
    };
    if (scope.shadowRoot) walk(scope.shadowRoot);
    walk(scope);
    return out;
  };
  const parts = (selector) => {
    const out = [];
    let depth = 0, quote = null, current = '';
    for (const ch of selector) {
      if (quote) { if (ch === quote) quote = null; }
      else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '[' || ch === '(') depth++;
      else if (ch === ']' || ch === ')') depth--;
      else if (/\\s/.test(ch) && depth === 0) { if (current) out.push(current); current = ''; continue; }
      current += ch;
    }
    if (current) out.push(current);
    return out;
  };
  const IMPLICIT = {
    button: 'button, input[type=button], input[type=submit], input[type=reset]',
    combobox: 'select:not([multiple]), input[list], textarea[aria-autocomplete], input[aria-autocomplete]',
    textbox: 'textarea:not([aria-autocomplete]), input:not([type]):not([list]), input[type=text]:not([list]), input[type=search]',
    link: 'a[href]',
    checkbox: 'input[type=checkbox]',
    listbox: 'select[multiple]',
    heading: 'h1, h2, h3, h4, h5, h6',
    list: 'ul, ol',
    listitem: 'li',
  };
  // As Playwright's role queries: hidden elements are not in the accessibility tree.
  const inTree = (el) =>
    !el.closest('[aria-hidden="true"]') &&
    (el.checkVisibility ? el.checkVisibility({ checkVisibilityCSS: true }) : el.getClientRects().length > 0);
  const hasRole = (el, role) => {
    if (!inTree(el)) return false;
    const explicit = el.getAttribute('role');
    if (explicit) return explicit.split(' ')[0] === role;
    return IMPLICIT[role] ? el.matches(IMPLICIT[role]) : false;
  };
  const byIds = (el, ids) => {
    const root = el.getRootNode();
    return ids.split(/\\s+/).map((id) => root.getElementById ? root.getElementById(id) : document.getElementById(id)).filter(Boolean);
  };
  const labelText = (el) => {
    if (el.getAttribute('aria-labelledby')) return byIds(el, el.getAttribute('aria-labelledby')).map((l) => l.textContent).join(' ');
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
    if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(' ');
    return null;
  };
  const accessibleName = (el) => {
    const label = labelText(el);
    if (label != null) return label;
    if (el.matches('button, a, summary, [role=button], [role=link], [role=tab], [role=option], h1, h2, h3, h4, h5, h6')) return el.textContent;
    if (el.matches('input[type=button], input[type=submit]')) return el.value;
    return el.getAttribute('title') || el.getAttribute('placeholder') || '';
  };
  const step = (scopes, s) => {
    if (s.nth !== undefined) {
      const one = s.nth < 0 ? scopes[scopes.length + s.nth] : scopes[s.nth];
      return one ? [one] : [];
    }
    let found = [];
    if (s.css !== undefined) {
      found = scopes;
      for (const part of parts(s.css)) found = found.flatMap((scope) => descendants(scope).filter((el) => el.matches(part)));
    } else {
      const all = scopes.flatMap(descendants);
      if (s.role !== undefined)
        found = all.filter((el) => hasRole(el, s.role) && (s.name === undefined || matchText(accessibleName(el), s.name, s.exact)));
      else if (s.label !== undefined)
        found = all.filter((el) => el.matches('input, textarea, select, button, [aria-label], [aria-labelledby]') && matchText(labelText(el), s.label, s.exact));
      else if (s.text !== undefined) {
        const hits = all.filter((el) => !el.matches('script, style') && matchText(el.textContent, s.text, s.exact));
        found = hits.filter((el) => !hits.some((other) => other !== el && el.contains(other)));
      }
    }
    return [...new Set(found)];
  };
  return steps.reduce(step, [document.documentElement]);
}`;
