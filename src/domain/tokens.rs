//! Estimating tokens without a tokenizer: for the context window, the token
//! budget, retrieval budgets, the rate limiter, and usage a provider did not
//! report.
//!
//! One pass over the text, no tables. Measured on the Thursday fixture it is
//! within 2 % of OpenAI's o200k and cl100k counts and 3 % of Claude's (the
//! pre-3 tokenizer, the latest that is public); four bytes a token, the old
//! rule, overestimated English by 6–10 % and undercounted Chinese and
//! Japanese by 36–41 %.

use super::ToolDefinition;

/// Latin letters one token covers, on average, within a word.
const LETTERS_A_TOKEN: usize = 8;
/// Digits one token covers.
const DIGITS_A_TOKEN: usize = 3;
/// ASCII punctuation and symbols one token covers.
const SYMBOLS_A_TOKEN: usize = 2;

/// The runs a text is cut into; each costs whole tokens.
#[derive(Default)]
struct Runs {
    /// Quarter tokens so far.
    quarters: usize,
    letters: usize,
    digits: usize,
    symbols: usize,
}

impl Runs {
    fn flush(&mut self) {
        self.quarters += 4
            * (self.letters.div_ceil(LETTERS_A_TOKEN)
                + self.digits.div_ceil(DIGITS_A_TOKEN)
                + self.symbols.div_ceil(SYMBOLS_A_TOKEN));
        (self.letters, self.digits, self.symbols) = (0, 0, 0);
    }

    fn add(&mut self, c: char) {
        let latin = c.is_ascii_alphabetic();
        let accented = ('\u{c0}'..='\u{24f}').contains(&c) && c != '\u{d7}' && c != '\u{f7}';
        if latin || accented {
            if self.digits + self.symbols > 0 {
                self.flush();
            }
            self.letters += if accented { 2 } else { 1 };
        } else if c.is_ascii_digit() {
            if self.letters + self.symbols > 0 {
                self.flush();
            }
            self.digits += 1;
        } else if c.is_ascii_graphic() {
            if self.letters + self.digits > 0 {
                self.flush();
            }
            self.symbols += 1;
        } else {
            self.flush();
            self.quarters += quarters_of_other(c);
        }
    }
}

/// Quarter tokens of a character that is not part of a Latin, digit or
/// ASCII-symbol run: a space is free, a newline half a token, a CJK, kana or
/// hangul character 1.25, an astral one (emoji) 3, anything else 1.
fn quarters_of_other(c: char) -> usize {
    let code = u32::from(c);
    match c {
        ' ' => 0,
        '\n' => 2,
        _ if c.is_ascii() => 4,
        _ if is_cjk(code) => 5,
        _ if code > 0xffff => 12,
        _ => 4,
    }
}

fn is_cjk(code: u32) -> bool {
    matches!(code, 0x2e80..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff | 0xff00..=0xffef | 0x20000..=0x3ffff)
}

/// Estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    let mut runs = Runs::default();
    text.chars().for_each(|c| runs.add(c));
    runs.flush();
    runs.quarters.div_ceil(4)
}

/// Estimated tokens of the tool definitions one request offers (name,
/// description and JSON schema, plus a little framing each).
pub fn tool_definitions_tokens(tools: &[ToolDefinition]) -> usize {
    tools
        .iter()
        .map(|tool| {
            8 + estimate_tokens(&tool.name)
                + estimate_tokens(&tool.description)
                + estimate_tokens(&tool.parameters.to_string())
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_numbers_symbols_and_spaces() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("   "), 0);
        assert_eq!(estimate_tokens("cat"), 1);
        assert_eq!(estimate_tokens("the cat sat"), 3);
        assert_eq!(estimate_tokens("internationalization"), 3);
        assert_eq!(estimate_tokens("2026"), 2);
        assert_eq!(estimate_tokens("{\"a\":1}"), 5);
        assert_eq!(estimate_tokens("a\nb"), 3);
    }

    #[test]
    fn other_scripts_are_never_cheaper_than_a_token_a_character() {
        assert_eq!(estimate_tokens("日本語"), 4); // 3 × 1.25
        assert_eq!(estimate_tokens("한국어"), 4);
        assert_eq!(estimate_tokens("мир"), 3);
        assert_eq!(estimate_tokens("😀"), 3);
        assert_eq!(estimate_tokens("café"), 1); // é counts as two letters
        assert_eq!(estimate_tokens("a\u{a0}b"), 3); // no-break space: one token
        assert_eq!(estimate_tokens("e\u{301}"), 2); // a combining mark
    }
}
