//! serde's `rename_all` rules, for the names Lectern's records use.

/// `ident` (a Rust field or variant name) renamed by `rule`, or `None` for a
/// rule this derive does not know.
pub fn rename(ident: &str, rule: &str, is_variant: bool) -> Option<String> {
    // A field is snake_case and a variant PascalCase in Rust; split either into words.
    let words = words(ident, is_variant);
    let joined = |sep: &str| words.join(sep);
    Some(match rule {
        "lowercase" => ident.to_lowercase(),
        "UPPERCASE" => ident.to_uppercase(),
        "snake_case" => joined("_"),
        "SCREAMING_SNAKE_CASE" => joined("_").to_uppercase(),
        "kebab-case" => joined("-"),
        "camelCase" => camel(&words, false),
        "PascalCase" => camel(&words, true),
        _ => return None,
    })
}

/// The lowercase words of a snake_case field name or a PascalCase variant name.
fn words(ident: &str, is_variant: bool) -> Vec<String> {
    if !is_variant {
        return ident.split('_').map(str::to_owned).collect();
    }
    let mut words: Vec<String> = Vec::new();
    for c in ident.chars() {
        if c.is_uppercase() || words.is_empty() {
            words.push(String::new());
        }
        if let Some(word) = words.last_mut() {
            word.extend(c.to_lowercase());
        }
    }
    words
}

fn camel(words: &[String], first_upper: bool) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        let mut chars = word.chars();
        match chars.next() {
            Some(first) if i > 0 || first_upper => {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
            _ => out.push_str(word),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn renames_as_serde_does() {
        assert_eq!(rename("page_count", "camelCase", false).unwrap(), "pageCount");
        assert_eq!(rename("id", "camelCase", false).unwrap(), "id");
        assert_eq!(rename("ToolResult", "camelCase", true).unwrap(), "toolResult");
        assert_eq!(rename("ToolResult", "snake_case", true).unwrap(), "tool_result");
        assert_eq!(rename("ToolResult", "lowercase", true).unwrap(), "toolresult");
        assert_eq!(rename("max_tokens", "kebab-case", false).unwrap(), "max-tokens");
        assert!(rename("x", "Train-Case", false).is_none());
    }
}
