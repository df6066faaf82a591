//! `addBook`'s input, checked without copying the book into wasm: the text
//! (or pages, or EPUB bytes) stays a JS value until it is known where the
//! work runs — passed on to the worker as it is, or read here for the page.

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::{Error, Result};
use crate::json::from_json::FromJson;
use crate::retrieval::library::{BookSource, NewBook};
use crate::wasm::js::from_js;

#[derive(FromJson)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BookFields {
    title: String,
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

/// The content of a book to add, as JS gave it.
pub enum SourceInput {
    /// `text`: a string.
    Text(JsValue),
    /// `pages`: an array of strings.
    Pages(Array),
    /// `epub`: the file's bytes.
    Epub(Uint8Array),
}

/// `{ title, author?, text | pages | epub }`, checked.
pub struct BookInput {
    /// The id the host chose (checked when the book is added), if any.
    pub id: Option<String>,
    /// The title as given.
    pub title: String,
    /// The author, if given.
    pub author: Option<String>,
    /// The content.
    pub source: SourceInput,
}

/// Reads `addBook`'s input: exactly one of `text`, `pages` or `epub`, and
/// no unknown field.
pub fn read_book_input(input: JsValue) -> Result<BookInput> {
    if !input.is_object() {
        return Err(Error::config("addBook needs { title, text | pages | epub }"));
    }
    let copy = Object::assign(&Object::new(), input.unchecked_ref());
    let take = |key: &str| {
        let value = Reflect::get(&copy, &key.into()).unwrap_or(JsValue::UNDEFINED);
        let _ = Reflect::delete_property(&copy, &key.into());
        Some(value).filter(|v| !v.is_undefined() && !v.is_null())
    };
    let (text, pages, epub) = (take("text"), take("pages"), take("epub"));
    let fields: BookFields = from_js(copy.into(), "addBook input")?;
    let source = match (text, pages, epub) {
        (Some(text), None, None) if text.is_string() => SourceInput::Text(text),
        (Some(_), None, None) => return Err(Error::config("text must be a string")),
        (None, Some(pages), None) => SourceInput::Pages(
            pages
                .dyn_into::<Array>()
                .ok()
                .filter(|list| list.iter().all(|p| p.is_string()))
                .ok_or_else(|| Error::config("pages must be an array of strings"))?,
        ),
        (None, None, Some(epub)) => SourceInput::Epub(
            epub.dyn_into()
                .map_err(|_| Error::config("epub must be a Uint8Array of the file's bytes"))?,
        ),
        _ => return Err(Error::config("give exactly one of text, pages or epub")),
    };
    Ok(BookInput {
        id: fields.id,
        title: fields.title,
        author: fields.author,
        source,
    })
}

impl BookInput {
    /// The book, read into Rust (the text copied once).
    pub fn into_new_book(self) -> NewBook {
        let source = match self.source {
            SourceInput::Text(text) => BookSource::Text(text.as_string().unwrap_or_default()),
            SourceInput::Pages(pages) => {
                BookSource::Pages(pages.iter().map(|p| p.as_string().unwrap_or_default()).collect())
            }
            SourceInput::Epub(bytes) => BookSource::Epub(bytes.to_vec()),
        };
        NewBook {
            title: self.title,
            author: self.author,
            source,
        }
    }
}
