//! The generated `FromJson` and `Deserialize` impls.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DataEnum, DataStruct, DeriveInput, Fields, Ident};

use crate::attrs::{self, Container, Default};
use crate::case;

/// The impls for `input`, or the error that says why this derive cannot read it.
pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "FromJson reads types without generics",
        ));
    }
    let container = attrs::container(&input.attrs)?;
    let body = match &input.data {
        Data::Struct(data) => struct_body(&input.ident, data, &container)?,
        Data::Enum(data) => enum_body(data, &container)?,
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "FromJson does not read unions",
            ))
        }
    };
    let name = &input.ident;
    Ok(quote! {
        impl crate::json::from_json::FromJson for #name {
            fn from_json(value: ::serde_json::Value) -> ::std::result::Result<Self, ::serde_json::Error> {
                #body
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                crate::json::from_json::deserialize(deserializer)
            }
        }
    })
}

/// `Fields::open`, then each field read by name, then the unknown-field check.
fn struct_body(name: &Ident, data: &DataStruct, container: &Container) -> syn::Result<TokenStream> {
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            name,
            "FromJson reads structs with named fields",
        ));
    };
    let mut known = Vec::new();
    let mut reads = Vec::new();
    for field in &fields.named {
        let member = attrs::member(&field.attrs)?;
        let ident = field.ident.as_ref().expect("named fields have names");
        let default = match (&member.default, container.default) {
            (Some(Default::Trait), _) => quote!(::std::default::Default::default()),
            (Some(Default::Function(path)), _) => quote!(#path()),
            (None, true) => quote!(container_default.#ident),
            (None, false) if member.skip => quote!(::std::default::Default::default()),
            (None, false) => quote!(),
        };
        if member.skip {
            reads.push(quote!(#ident: #default));
            continue;
        }
        let key = json_name(ident, member.rename, container, false)?;
        reads.push(match default.is_empty() {
            true => quote!(#ident: fields.required(#key)?),
            false => quote!(#ident: match fields.optional(#key)? { Some(value) => value, None => #default }),
        });
        known.push(key);
    }
    let expecting = format!("struct {name}");
    let deny = container.deny_unknown_fields;
    let container_default = match container.default {
        true => quote!(let container_default: Self = ::std::default::Default::default();),
        false => quote!(),
    };
    Ok(quote! {
        const FIELDS: &[&str] = &[#(#known),*];
        let mut fields = crate::json::from_json::Fields::open(value, #expecting, FIELDS, #deny)?;
        #container_default
        ::std::result::Result::Ok(Self { #(#reads),* })
    })
}

/// The variant's name read from the value, then matched.
fn enum_body(data: &DataEnum, container: &Container) -> syn::Result<TokenStream> {
    let mut names = Vec::new();
    let mut arms = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(
                variant,
                "FromJson reads enums of unit variants only",
            ));
        }
        let member = attrs::member(&variant.attrs)?;
        if member.skip || member.default.is_some() {
            return Err(syn::Error::new_spanned(
                variant,
                "FromJson reads a variant's `rename` only",
            ));
        }
        let key = json_name(&variant.ident, member.rename, container, true)?;
        let ident = &variant.ident;
        arms.push(quote!(#key => ::std::result::Result::Ok(Self::#ident)));
        names.push(key);
    }
    Ok(quote! {
        const VARIANTS: &[&str] = &[#(#names),*];
        let name = crate::json::from_json::variant_name(value)?;
        match name.as_str() {
            #(#arms,)*
            other => ::std::result::Result::Err(crate::json::from_json::unknown_variant(other, VARIANTS)),
        }
    })
}

/// A field's or variant's JSON name: its `rename`, or its Rust name under `rename_all`.
fn json_name(
    ident: &Ident,
    rename: Option<String>,
    container: &Container,
    is_variant: bool,
) -> syn::Result<String> {
    if let Some(name) = rename {
        return Ok(name);
    }
    let ident = ident.to_string();
    let ident = ident.strip_prefix("r#").unwrap_or(&ident);
    match &container.rename_all {
        None => Ok(ident.to_owned()),
        Some(rule) => case::rename(ident, &rule.value(), is_variant)
            .ok_or_else(|| syn::Error::new_spanned(rule, "FromJson does not know this rename_all rule")),
    }
}
