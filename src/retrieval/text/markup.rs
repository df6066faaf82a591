//! A small, forgiving scanner for the XML and XHTML inside EPUB files:
//! tags with attributes, text with entities decoded. Malformed markup is read
//! as well as it can be, never a panic.

/// One piece of markup.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// `<name attr="v">` (or self-closing, then `End` follows).
    Start {
        /// Local name, lower-cased, without a namespace prefix.
        name: String,
        /// Attributes by local name.
        attrs: Vec<(String, String)>,
    },
    /// `</name>`.
    End {
        /// Local name, lower-cased.
        name: String,
    },
    /// Text between tags, entities decoded.
    Text(String),
}

pub use crate::retrieval::text::entities::decode_entities;

fn local(name: &str) -> String {
    name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase()
}

fn attributes(inside: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    let mut rest = inside;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().rsplit(char::is_whitespace).next().unwrap_or("");
        let after = rest[eq + 1..].trim_start();
        let (value, tail) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => match after[1..].find(q) {
                Some(close) => (&after[1..1 + close], &after[close + 2..]),
                None => (&after[1..], ""),
            },
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if !key.is_empty() {
            attrs.push((local(key), decode_entities(value)));
        }
        rest = tail;
    }
    attrs
}

/// Where the tag opening `rest` ends: its first `>` outside a quoted
/// attribute value (a quote opens a value only right after `=`). If a quote
/// never closes, the first `>` ends the tag, as the markup is then broken anyway.
fn tag_end(rest: &str) -> Option<usize> {
    let mut quote: Option<u8> = None;
    let mut after_eq = false;
    for (i, b) in rest.bytes().enumerate() {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'>' => return Some(i),
            b'"' | b'\'' if after_eq => quote = Some(b),
            b'=' => {
                after_eq = true;
                continue;
            }
            _ if b.is_ascii_whitespace() => continue,
            _ => {}
        }
        after_eq = false;
    }
    rest.find('>')
}

/// The tokens of `markup`; comments, processing instructions and doctypes are skipped.
pub fn tokens(markup: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = markup;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            out.push(Token::Text(decode_entities(rest)));
            break;
        };
        if open > 0 {
            out.push(Token::Text(decode_entities(&rest[..open])));
        }
        rest = &rest[open..];
        if let Some(body) = rest.strip_prefix("<!--") {
            rest = body.find("-->").map_or("", |end| &body[end + 3..]);
            continue;
        }
        if let Some(body) = rest.strip_prefix("<![CDATA[") {
            let end = body.find("]]>").unwrap_or(body.len());
            out.push(Token::Text(body[..end].to_owned()));
            rest = body.get(end + 3..).unwrap_or("");
            continue;
        }
        let Some(close) = tag_end(rest) else { break };
        let inside = &rest[1..close];
        rest = &rest[close + 1..];
        if inside.starts_with('?') || inside.starts_with('!') {
            continue;
        }
        if let Some(name) = inside.strip_prefix('/') {
            out.push(Token::End {
                name: local(name.trim()),
            });
            continue;
        }
        let self_closing = inside.ends_with('/');
        let inside = inside.trim_end_matches('/');
        let name_end = inside.find(char::is_whitespace).unwrap_or(inside.len());
        let name = local(&inside[..name_end]);
        out.push(Token::Start {
            name: name.clone(),
            attrs: attributes(&inside[name_end..]),
        });
        if self_closing {
            out.push(Token::End { name });
        }
    }
    out
}

/// The value of attribute `key`.
pub fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Readable text of an XHTML document: block elements become paragraph
/// breaks, `<br>` a line break (verse, addresses, letters keep their
/// lines); `head`, `script` and `style` are dropped.
pub fn xhtml_text(markup: &str) -> String {
    const BLOCKS: &[&str] = &[
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "blockquote",
        "section",
        "article",
        "tr",
        "pre",
        "hr",
    ];
    let mut text = String::new();
    let mut skipping: Option<String> = None;
    for token in tokens(markup) {
        match token {
            Token::Start { name, .. }
                if skipping.is_none() && matches!(name.as_str(), "head" | "script" | "style") =>
            {
                skipping = Some(name);
            }
            Token::End { name } if skipping.as_deref() == Some(name.as_str()) => skipping = None,
            _ if skipping.is_some() => {}
            Token::Start { name, .. } if name == "br" => text.push('\u{2028}'),
            Token::Start { name, .. } | Token::End { name } if BLOCKS.contains(&name.as_str()) => {
                text.push('\u{2029}')
            }
            Token::Text(t) => text.push_str(&t),
            _ => {}
        }
    }
    // U+2029 marks block boundaries, U+2028 a `<br>`; whitespace inside a line collapses.
    text.split('\u{2029}')
        .map(paragraph_lines)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A paragraph's lines (split at U+2028), each with its whitespace collapsed,
/// empty ones dropped, joined by line breaks.
fn paragraph_lines(paragraph: &str) -> String {
    paragraph
        .split('\u{2028}')
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_attributes() {
        let t = tokens(
            r#"<?xml version="1.0"?><opf:item id='c1' href="ch%201.xhtml" media-type="application/xhtml+xml"/><!-- x --><a>T&amp;C</a>"#,
        );
        assert_eq!(
            t[0],
            Token::Start {
                name: "item".into(),
                attrs: vec![
                    ("id".into(), "c1".into()),
                    ("href".into(), "ch%201.xhtml".into()),
                    ("media-type".into(), "application/xhtml+xml".into())
                ]
            }
        );
        assert_eq!(t[1], Token::End { name: "item".into() });
        assert_eq!(t[3], Token::Text("T&C".into()));
    }

    #[test]
    fn xhtml_to_text() {
        let page = "<html><head><title>No</title><style>p{}</style></head><body><h1>Chapter&#160;1</h1>\n<p>It was a <i>dark</i>\n   night&mdash;truly.</p><p>Next<br/>line &#x263A;</p><script>x()</script></body></html>";
        assert_eq!(
            xhtml_text(page),
            "Chapter 1\n\nIt was a dark night—truly.\n\nNext\nline ☺"
        );
    }

    #[test]
    fn malformed_markup_does_not_panic() {
        for input in [
            "<",
            "<a",
            "&",
            "&#xZZ;",
            "<p>unclosed",
            "</>",
            "<a b=>",
            "<![CDATA[x",
            "é<b>ü</b>&é;",
        ] {
            let _ = xhtml_text(input);
            let _ = tokens(input);
        }
    }

    #[test]
    fn an_entity_before_cjk_text_does_not_split_a_character() {
        assert_eq!(decode_entities("&amp;日本語のテキスト"), "&日本語のテキスト");
        assert_eq!(decode_entities("&日本語のテキスト;"), "&日本語のテキスト;");
        assert_eq!(xhtml_text("<p>春&amp;秋の物語です</p>"), "春&秋の物語です");
    }

    #[test]
    fn html_named_and_numeric_entities() {
        assert_eq!(
            decode_entities("caf&eacute; &Auml;&szlig;&ccedil; &copy;&reg;&deg;&frac12;&times;"),
            "café Äßç ©®°½×"
        );
        assert_eq!(
            decode_entities("a&mdash;b&ndash;c&hellip; &laquo;x&raquo; &bull;&dagger;&euro;&trade;"),
            "a—b–c… «x» •†€™"
        );
        assert_eq!(
            decode_entities("&alpha;&Omega;&rarr;&le;&infin;&hearts;"),
            "αΩ→≤∞♥"
        );
        assert_eq!(
            decode_entities("a&nbsp;b&thinsp;c&zwj;"),
            "a\u{a0}b\u{2009}c\u{200d}"
        );
        // Numeric: hex, decimal, Windows-1252 remapping, invalid code points.
        assert_eq!(decode_entities("&#x1F600;&#128512;&#233;&#151;&#146;"), "😀😀é—’");
        assert_eq!(
            decode_entities("&#0;&#xD800;&#x110000;"),
            "\u{FFFD}\u{FFFD}\u{FFFD}"
        );
        // Not entities: kept as written.
        assert_eq!(
            decode_entities("&nosuch; & &amp &#; &#x;"),
            "&nosuch; & &amp &#; &#x;"
        );
    }

    #[test]
    fn a_greater_than_sign_inside_an_attribute_value_does_not_end_the_tag() {
        let t = tokens(r#"<a title="x > y" data-z='1>0' href="b.xhtml">link</a>"#);
        assert_eq!(
            t,
            [
                Token::Start {
                    name: "a".into(),
                    attrs: vec![
                        ("title".into(), "x > y".into()),
                        ("data-z".into(), "1>0".into()),
                        ("href".into(), "b.xhtml".into())
                    ]
                },
                Token::Text("link".into()),
                Token::End { name: "a".into() }
            ]
        );
        assert_eq!(xhtml_text(r#"<p><img alt="a > b"/>after</p>"#), "after");
        // An unclosed quote falls back to the first `>`.
        assert_eq!(xhtml_text(r#"<p class="x>text</p>"#), "text");
    }
}
