//! `#[derive(FromJson)]`: a reader of one record type out of a
//! `serde_json::Value`, in place of serde's `Deserialize` derive.
//!
//! serde's derive writes, for every struct, a field-name visitor, a map visitor
//! holding an `Option` per field, duplicate-field checks and the drop paths of
//! each; monomorphised for the deserializer, that is one to five KB of wasm a
//! type (twiggy: 180 KB of the page's module for ~80 types). The reader this
//! derive writes is a list of calls to `lectern::json::from_json::Fields`, whose
//! generic parts depend on a field's type only, so every struct shares them.
//!
//! It reads the `#[serde]` attributes the `Serialize` derive reads, so a type's
//! JSON names are written once. It understands what Lectern's records use:
//! on the container `rename_all`, `deny_unknown_fields` and `default`; on a
//! field `rename`, `default`, `default = "path"`, `skip` and
//! `skip_deserializing`; on a variant `rename`. Structs with named fields and
//! enums of unit variants only. Anything else that changes how a type is read
//! (`flatten`, `tag`, `untagged`, `alias`, …) is a compile error: such a type
//! keeps serde's `Deserialize`.
//!
//! The generated code implements `lectern::json::from_json::FromJson` and, through
//! `lectern::json::from_json::deserialize`, `serde::Deserialize`, so the type still
//! nests inside serde-derived types and reads with `serde_json::from_str`.

mod attrs;
mod case;
mod expand;

use proc_macro::TokenStream;

/// Implements `FromJson` and `serde::Deserialize` for a struct with named
/// fields or an enum of unit variants, from its `#[serde]` attributes.
#[proc_macro_derive(FromJson, attributes(serde))]
pub fn derive_from_json(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
