// How the chat names a passage's pages.

/** "p. 31" or "p. 30–31". */
export function pagesLabel({ startPage, endPage }) {
  return startPage === endPage ? `p. ${startPage}` : `p. ${startPage}–${endPage}`;
}
