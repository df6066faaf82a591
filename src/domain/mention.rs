//! A reference the user made to something of the host's (a document, a note).

use serde::Serialize;

use crate::json::from_json::FromJson;

/// `{ type, id }`: resolved by the host's resolver into text for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, FromJson)]
#[serde(deny_unknown_fields)]
pub struct Mention {
    /// What kind of thing, in the host's terms (`document`, `note`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Which one.
    pub id: String,
}
