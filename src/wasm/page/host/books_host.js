// The page's module loads the books module (lectern_books.js, shipped at the
// package root beside lectern.js) on the first book call or book
// conversation: a chat that never opens a book never downloads it.
// wasm-bindgen copies this file to pkg/snippets/lectern-<hash>/src/wasm/page/host/:
// the URL below climbs back to pkg/ (a literal, for bundlers).

let booksModule = null;

/** Loads the books module once (again after a failed load) and opens a `LecternBooks`. */
export function openBooks(settings, embed, emit) {
  booksModule ??= import('../../../../../../lectern_books.js')
    .then(async (module) => {
      await module.default();
      return module;
    })
    .catch((error) => {
      booksModule = null;
      throw error;
    });
  return booksModule.then((module) => module.LecternBooks.open(settings, embed, emit));
}
