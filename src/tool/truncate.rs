//! Capping a tool result before the model reads it: a tool that returns a
//! whole database dump must not fill the context (the record keeps it whole).

/// Characters of one tool result the model reads, unless configured otherwise.
pub const DEFAULT_MAX_RESULT_CHARS: usize = 50_000;

/// `content` as the model reads it: whole when it has at most `max_chars`
/// characters, else its first `max_chars` characters (cut at a character
/// boundary) and a note such as `[truncated: 50,000 of 812,345 characters shown]`.
pub fn cap_result(content: &str, max_chars: usize) -> String {
    let shown = shown_part(content, max_chars);
    if shown.len() == content.len() {
        return content.to_owned();
    }
    let total = max_chars + content[shown.len()..].chars().count();
    format!(
        "{shown}\n\n[truncated: {} of {} characters shown]",
        thousands(max_chars),
        thousands(total)
    )
}

/// The part of `content` the model reads of it: its first `max_chars`
/// characters (all of it when it is no longer).
pub fn shown_part(content: &str, max_chars: usize) -> &str {
    content
        .char_indices()
        .nth(max_chars)
        .map_or(content, |(cut, _)| &content[..cut])
}

/// `812345` as `812,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_results_are_whole_and_long_ones_cut_at_a_character() {
        assert_eq!(cap_result("héllo", 5), "héllo");
        assert_eq!(cap_result("", 0), "");
        assert_eq!(
            cap_result("é😀ab", 2),
            "é😀\n\n[truncated: 2 of 4 characters shown]"
        );
        assert_eq!(cap_result("abc", 0), "\n\n[truncated: 0 of 3 characters shown]");
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(812_345), "812,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
