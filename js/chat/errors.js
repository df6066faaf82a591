// Friendly text for a failed turn, by the typed error's name (see docs/api.md, "Errors").

const FRIENDLY = {
  AuthError: 'The model server refused the API key. Check the key, then retry.',
  ConnectionError: 'Could not reach the model server. Check the connection and the base URL, then retry.',
  RateLimitError: 'The model server is busy (rate limit). Wait a moment, then retry.',
  TimeoutError: 'The answer took too long. Retry, or ask something shorter.',
  ApiError: 'The model server answered with an error. Retry in a moment.',
  ProtocolError: 'The model server sent an answer Lectern could not read. Check the provider kind and base URL.',
  ToolError: 'A tool failed. Retry in a moment.',
  InternalError: 'Something broke inside the chat. Reload the page.',
  ConversationBusyError: 'Another tab is answering in this conversation. Retry when it is done.',
  ApprovalPendingError: 'A tool call is waiting for your decision above.',
  MaxIterationsError: 'The assistant took too many steps. Retry, or ask more precisely.',
  MaxToolCallsError: 'The assistant called too many tools. Retry, or ask more precisely.',
  StorageError: 'The browser could not save the conversation (storage full or closed). Reload the page.',
  ConfigError: 'The chat is not set up correctly: ',
};

/** One line for people; the error's own message only where it helps (configuration). `settings`: the panel is shown. */
export function friendlyError(error, settings = false) {
  const name = String(error?.name ?? 'Error');
  if (name === 'AuthError' && settings) return 'The model server refused the API key. Check it in Model settings, then retry.';
  const known = FRIENDLY[name];
  if (known && known.endsWith(': ')) return known + String(error?.message ?? '');
  return known ?? `Something went wrong (${name}). Retry in a moment.`;
}

/** Whether `retry` can help after this error (it cannot after an abort or a pending approval). */
export function retryable(error) {
  return !['AbortError', 'ApprovalPendingError', 'ConfigError', 'InternalError', 'StorageError'].includes(error?.name);
}
