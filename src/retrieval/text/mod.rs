//! A book's text: its breaks, markup, pages, sentences and chunks.

pub mod breaks;
pub mod chunk;
pub mod entities;
pub mod markup;
pub mod pages;
pub mod sentences;
