//! A mutable slice that a pool's threads write at once, each in ranges of
//! its own.

use std::marker::PhantomData;
use std::ops::Range;

/// `&mut [T]` (floats, or each token's quantised input) shared by threads
/// that each write ranges no other writes.
pub struct DisjointSlice<'a, T = f32> {
    start: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the slice is borrowed mutably for `'a`, and threads reach it only
// through `DisjointSlice::range` and `DisjointSlice::set`, whose callers
// promise disjoint ranges and elements.
unsafe impl<T: Send> Sync for DisjointSlice<'_, T> {}

impl<'a, T> DisjointSlice<'a, T> {
    /// `slice`, to be written in disjoint ranges.
    pub fn new(slice: &'a mut [T]) -> Self {
        DisjointSlice {
            start: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Elements `range` (panics outside the slice).
    ///
    /// # Safety
    /// No other thread reads or writes any of `range` while the returned
    /// slice lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, range: Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "outside the slice"
        );
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.start.add(range.start), range.len()) }
    }

    /// Writes `value` at `at` (panics outside the slice).
    ///
    /// # Safety
    /// No other thread reads or writes element `at` meanwhile.
    pub unsafe fn set(&self, at: usize, value: T) {
        assert!(at < self.len, "outside the slice");
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { *self.start.add(at) = value }
    }
}
