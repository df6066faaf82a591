// A tiny element builder: properties and attributes set one by one, text only through text nodes.

/**
 * `h('button', { part: 'send', type: 'button', onclick }, 'Send')`: keys `part`, `class`,
 * `on*` (listeners), `aria-*`/`data-*`/`role` (attributes), anything else as a property.
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'part') node.setAttribute('part', value);
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'role' || key === 'for' || key.startsWith('aria-') || key.startsWith('data-')) node.setAttribute(key, value === true ? 'true' : value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** JSON for people: pretty when it parses, the text as it is otherwise. */
export function prettyJson(value) {
  if (typeof value !== 'string') return JSON.stringify(value, null, 2) ?? String(value);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}
