//! Property tests of the text pipeline on Unicode-heavy input (CJK, Arabic,
//! emoji sequences, combining marks, every kind of space): the markup
//! scanner and entity decoder, page cutting and chunking. No input panics
//! them; the invariants live in `lectern::retrieval::fuzz_entry`, which a
//! `cargo fuzz` harness calls too. `PROPTEST_CASES` overrides the case counts.

use crate::support::prop_config;

use lectern::retrieval::fuzz_entry;
use lectern::retrieval::text::chunk::ChunkSettings;
use lectern::retrieval::text::markup::{decode_entities, xhtml_text};
use lectern::retrieval::text::pages::pages_from_list;
use prop_config::config;
use proptest::collection::vec;
use proptest::prelude::*;

/// Pieces of text from many scripts, with the characters that matter to
/// cutting: spaces of every kind, terminators, quotes, joiners, marks.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}",
        3 => "[\u{3041}-\u{3096}\u{30A1}-\u{30FA}\u{4E00}-\u{4FFF}]{1,30}",
        2 => "[\u{0621}-\u{064A}]{1,8}",
        4 => prop::sample::select(vec![" ", " ", "\n", "\n\n", "\u{a0}", "\u{3000}", "\u{2003}", "\t", "\u{202F}"]).prop_map(String::from),
        3 => prop::sample::select(vec![". ", "。", "！", "? ", "؟ ", "…", "\" ", "」", "「", "（", "）", "、", ".", "．"]).prop_map(String::from),
        2 => prop::sample::select(vec!["👨‍👩‍👧‍👦", "🇯🇵", "👍🏽", "1️⃣", "🐈‍⬛", "e\u{301}", "\u{64B}", "\u{200D}", "\u{FE0F}", "か\u{3099}"]).prop_map(String::from),
        1 => prop::sample::select(vec!["3.5", "Mr. ", "e.g. ", "CHAPTER IV\n", "３．１４"]).prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ]
}

fn unicode_text(pieces: usize) -> impl Strategy<Value = String> {
    vec(piece(), 0..pieces).prop_map(|p| p.concat())
}

/// An element tree, serialised as XHTML, and the text a reader must get from it.
#[derive(Debug, Clone)]
enum Node {
    Text(String, u8),
    CData(String),
    Comment(String),
    Element(&'static str, Vec<(&'static str, String, bool)>, Vec<Node>),
    Skipped(&'static str, String),
}

/// `text` with every `pattern` taken out, including those the removals make.
fn without(mut text: String, pattern: &str) -> String {
    while text.contains(pattern) {
        text = text.replace(pattern, "");
    }
    text
}

fn node() -> impl Strategy<Value = Node> {
    let names = [
        "p",
        "div",
        "span",
        "em",
        "a",
        "h1",
        "li",
        "br",
        "section",
        "ruby",
        "rt",
        "epub:switch",
    ];
    let attr_names = ["class", "id", "title", "href", "alt", "xml:lang", "epub:type"];
    let leaf = prop_oneof![
        6 => (unicode_text(6), 0u8..4).prop_map(|(t, mode)| Node::Text(t, mode)),
        1 => unicode_text(4).prop_map(|t| Node::CData(without(t, "]]>"))),
        1 => unicode_text(4).prop_map(|t| Node::Comment(without(t, "--"))),
        1 => (prop::sample::select(vec!["script", "style", "head"]), unicode_text(4))
            .prop_map(|(name, t)| Node::Skipped(name, t)),
    ];
    leaf.prop_recursive(4, 40, 6, move |inner| {
        let value = prop_oneof![unicode_text(3), "[a-z =/'\"<>]{0,12}"];
        let attr = (prop::sample::select(attr_names.to_vec()), value, any::<bool>());
        (
            prop::sample::select(names.to_vec()),
            vec(attr, 0..3),
            vec(inner, 0..6),
        )
            .prop_map(|(name, attrs, children)| Node::Element(name, attrs, children))
    })
}

/// `text` with `&`, `<` (and `quote`) escaped, other characters as given by `mode`:
/// 0 literal, 1 decimal, 2 hex, 3 named where the test knows a name.
fn escape(text: &str, mode: u8, quote: Option<char>) -> String {
    const NAMED: &[(char, &str)] = &[
        ('é', "eacute"),
        ('—', "mdash"),
        ('…', "hellip"),
        ('\u{a0}', "nbsp"),
        ('€', "euro"),
        ('α', "alpha"),
        ('«', "laquo"),
    ];
    let mut out = String::new();
    for c in text.chars() {
        let numeric_ok = !(c == '\0' || ('\u{80}'..='\u{9f}').contains(&c));
        let named = NAMED.iter().find(|(n, _)| *n == c).map(|(_, name)| *name);
        match (c, mode) {
            ('&', _) => out.push_str("&amp;"),
            ('<', _) => out.push_str("&lt;"),
            (q, _) if Some(q) == quote => out.push_str(if q == '"' { "&quot;" } else { "&apos;" }),
            (c, 1) if numeric_ok && !c.is_ascii() => out.push_str(&format!("&#{};", c as u32)),
            (c, 2) if numeric_ok && !c.is_ascii() => out.push_str(&format!("&#x{:X};", c as u32)),
            (_, 3) if named.is_some() => out.push_str(&format!("&{};", named.unwrap_or_default())),
            (c, _) => out.push(c),
        }
    }
    out
}

fn serialise(node: &Node, markup: &mut String, text: &mut String) {
    match node {
        Node::Text(t, mode) => {
            markup.push_str(&escape(t, *mode, None));
            text.push_str(t);
        }
        Node::CData(t) => {
            markup.push_str(&format!("<![CDATA[{t}]]>"));
            text.push_str(t);
        }
        Node::Comment(t) => markup.push_str(&format!("<!--{t}-->")),
        Node::Skipped(name, t) => markup.push_str(&format!("<{name}>{}</{name}>", escape(t, 0, None))),
        Node::Element(name, attrs, children) => {
            markup.push('<');
            markup.push_str(name);
            for (key, value, single) in attrs {
                let q = if *single { '\'' } else { '"' };
                markup.push_str(&format!(" {key}={q}{}{q}", escape(value, 1, Some(q))));
            }
            if children.is_empty() {
                markup.push_str("/>");
                return;
            }
            markup.push('>');
            for child in children {
                serialise(child, markup, text);
            }
            markup.push_str(&format!("</{name}>"));
        }
    }
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn markup_of_any_text_never_panics(input in unicode_text(80), bytes in vec(any::<u8>(), 0..400)) {
        fuzz_entry::check_markup(&input);
        fuzz_entry::markup(&bytes);
        let tagged = input.replace('。', "<p a='>'>").replace('、', "&amp;").replace('」', "&#x");
        fuzz_entry::check_markup(&tagged);
    }

    #[test]
    fn generated_xhtml_gives_back_its_text(nodes in vec(node(), 0..8)) {
        let (mut markup, mut text) = (String::from("<html><body>"), String::new());
        for n in &nodes {
            serialise(n, &mut markup, &mut text);
        }
        markup.push_str("</body></html>");
        prop_assert_eq!(squeeze(&xhtml_text(&markup)), squeeze(&text), "{}", markup);
        fuzz_entry::check_markup(&markup);
    }

    #[test]
    fn escaped_text_decodes_to_itself(text in unicode_text(40), mode in 0u8..4) {
        prop_assert_eq!(decode_entities(&escape(&text, mode, Some('"'))), text);
    }

    #[test]
    fn pages_of_unicode_text(text in unicode_text(400), page_chars in 0usize..700) {
        fuzz_entry::check_pages(&text, page_chars);
    }

    #[test]
    fn pages_of_any_bytes(bytes in vec(any::<u8>(), 0..3000)) {
        fuzz_entry::pages(&bytes);
    }

    #[test]
    fn ascii_pages_longer_than_the_size_are_one_word(words in vec("[a-z]{1,300}", 1..60), page_chars in 200usize..400) {
        let text = words.join(" ");
        for page in fuzz_entry::check_pages(&text, page_chars) {
            let body = page.text.trim_end();
            prop_assert!(body.chars().count() <= page_chars || !body.contains(' '), "{:?}", body);
        }
    }

    #[test]
    fn chunks_of_unicode_pages(texts in vec(unicode_text(120), 1..6), chunk_chars in 0usize..300, overlap_chars in 0usize..300) {
        let settings = ChunkSettings { chunk_chars, overlap_chars, page_chars: 2000 };
        fuzz_entry::check_chunks(&pages_from_list(texts), &settings);
    }

    #[test]
    fn chunks_of_any_bytes(bytes in vec(any::<u8>(), 0..2000)) {
        fuzz_entry::chunking(&bytes);
    }
}
