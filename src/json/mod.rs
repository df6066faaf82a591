//! JSON values in and out: records read by `#[derive(FromJson)]`
//! ([`from_json`]), serde's reading of a `serde_json::Value` without the
//! array form of structs ([`value_de`]), and internally tagged option enums
//! ([`tagged`]).

pub mod from_json;
pub mod tagged;
pub mod value_de;
