// lectern/chat: defines <lectern-chat> (unless the page already did) and exports its class.
import { LecternChat } from './element.js';

if (!customElements.get('lectern-chat')) customElements.define('lectern-chat', LecternChat);

export { LecternChat };
export { safeHref } from './markdown.js';
