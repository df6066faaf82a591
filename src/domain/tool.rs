//! Tools the model may call, and the calls it makes.

use serde::Serialize;
use serde_json::Value;

use crate::json::from_json::FromJson;

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Name the model calls it by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// A call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, FromJson)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-assigned id that the result must echo.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments exactly as the model produced them (a JSON text, possibly malformed).
    pub arguments: String,
}
