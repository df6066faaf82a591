//! Code a first answer on an OpenAI-compatible server does not need, split off
//! the page's module: methods neither a first answer nor `<lectern-chat>`
//! showing a conversation calls (`tests/js/chat-lazy.test.mjs` checks the
//! widget's first answer fetches no chunk), the other providers' code (fetched
//! when `Lectern.open` builds such a model) and built-in tools' work (fetched
//! at the tool's first call).
//!
//! [`split_off!`] declares the work of such a method as a function that
//! returns a boxed future of its value for JS. In the package (feature
//! `split`) the function is a `#[wasm_split]` split point: `scripts/build.sh`
//! cuts it and everything only it reaches out of `lectern_bg.wasm` into
//! `split_<chunk>.wasm` (wasm-split-cli), which `__wasm_split.js` fetches on
//! the first call. Without the feature (native checks, the crate's browser
//! tests, the books module) it is a plain function. Either way the caller
//! awaits it once for the method's output; a chunk that fails to load rejects
//! the call with a `ConnectionError`, and the next call fetches it again.

/// Declares `fn $name(args) -> LocalBoxFuture<'static, $output>` whose body
/// (an async block's) lives in the chunk `$chunk`; awaited once, it gives
/// `$output`, a `Result` whose error a [`SplitLoaderError`] converts into.
///
/// [`SplitLoaderError`]: wasm_split_helpers::SplitLoaderError
macro_rules! split_off {
    ($chunk:ident, $(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $output:ty $body:block) => {
        $(#[$meta])*
        #[cfg_attr(feature = "split", wasm_split_helpers::wasm_split(
            $chunk,
            fallible,
            return_wrapper(let work = _; { work.await } -> $output)
        ))]
        fn $name($($arg: $ty),*) -> futures::future::LocalBoxFuture<'static, $output> {
            Box::pin(async move $body)
        }
    };
}
pub(super) use split_off;

/// A chunk that did not load: the snippet logged why to the console.
#[cfg(feature = "split")]
impl From<wasm_split_helpers::SplitLoaderError> for crate::error::Error {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        crate::error::Error::connection(
            "a part of Lectern's module (split_*.wasm beside lectern_bg.wasm) did not load; the console says why",
        )
    }
}

/// The same, for the methods that go on with a turn (`resumeTurn`, `resolveApprovals`).
#[cfg(feature = "split")]
impl From<wasm_split_helpers::SplitLoaderError> for crate::agent::TurnError {
    fn from(failed: wasm_split_helpers::SplitLoaderError) -> Self {
        crate::error::Error::from(failed).into()
    }
}
