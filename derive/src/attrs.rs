//! The `#[serde]` attributes that decide how a record is read.

use syn::{Attribute, LitStr, Path};

/// A container's `#[serde(...)]`.
#[derive(Default)]
pub struct Container {
    pub rename_all: Option<LitStr>,
    pub deny_unknown_fields: bool,
    /// `#[serde(default)]`: a missing field takes `Self::default()`'s.
    pub default: bool,
}

/// A field's (or a variant's) `#[serde(...)]`.
#[derive(Default)]
pub struct Member {
    pub rename: Option<String>,
    pub default: Option<Default>,
    /// `skip` or `skip_deserializing`: never read, always the default.
    pub skip: bool,
}

/// How a missing field is filled.
pub enum Default {
    /// `#[serde(default)]`: `Default::default()`.
    Trait,
    /// `#[serde(default = "path")]`.
    Function(Path),
}

/// Keys that change only how a value is written: the reader ignores them.
const WRITE_ONLY: &[&str] = &["skip_serializing", "skip_serializing_if", "serialize_with"];

/// Reads a container's attributes.
pub fn container(attrs: &[Attribute]) -> syn::Result<Container> {
    let mut out = Container::default();
    for attr in serde_attrs(attrs) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                out.rename_all = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("deny_unknown_fields") {
                out.deny_unknown_fields = true;
            } else if meta.path.is_ident("default") {
                out.default = true;
            } else {
                return Err(unsupported(&meta.path));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Reads a field's or a variant's attributes.
pub fn member(attrs: &[Attribute]) -> syn::Result<Member> {
    let mut out = Member::default();
    for attr in serde_attrs(attrs) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("default") {
                out.default = Some(match meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                    true => Default::Trait,
                    false => Default::Function(meta.value()?.parse::<LitStr>()?.parse()?),
                });
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                out.skip = true;
            } else if WRITE_ONLY.iter().any(|key| meta.path.is_ident(key)) {
                // Consume the value, if any: `skip_serializing_if = "…"`.
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitStr>()?;
                }
            } else {
                return Err(unsupported(&meta.path));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("serde"))
}

fn unsupported(path: &Path) -> syn::Error {
    let key = path.get_ident().map(ToString::to_string).unwrap_or_default();
    syn::Error::new_spanned(
        path,
        format!("FromJson does not read `#[serde({key})]`: derive serde's Deserialize for this type"),
    )
}
