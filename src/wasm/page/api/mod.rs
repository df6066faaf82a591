//! `Lectern`'s methods beyond opening it and sending, one file a concern
//! (each an `impl Lectern` block of its own).

mod approvals;
mod books;
mod one_shot;
mod portability;
mod replay;
mod resume;
mod retry;
mod storage;
mod subscribe;
mod synced;
