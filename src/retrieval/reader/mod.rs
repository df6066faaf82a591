//! What the reader's questions are answered from: the context in front of
//! the model, the checks of an answer against it, and quoted answers.

pub mod book_access;
pub mod budget;
pub mod context;
pub mod focus;
pub mod grounding;
mod library_access;
pub mod passages;
pub mod query;
pub mod quotes;
pub mod sentence_check;
