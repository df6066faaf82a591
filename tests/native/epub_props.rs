//! Property tests of the EPUB reader: arbitrary bytes, random mutations of
//! the real EPUB 3 fixtures (`tests/fixtures/epub`, made by pandoc), and
//! generated EPUBs whose documents are random Unicode text. Every input
//! gives pages or a `ConfigError`, never a panic; the invariants live in
//! `lectern::retrieval::fuzz_entry`. `PROPTEST_CASES` overrides the case counts.

use crate::support::prop_config;
use crate::support::unicode_books;

use lectern::retrieval::formats::epub::{pages_from_epub, EpubLimits};
use lectern::retrieval::formats::zip_writer::{write_zip, ZipEntry};
use lectern::retrieval::fuzz_entry;
use prop_config::config;
use proptest::collection::vec;
use proptest::prelude::*;

const LIMITS: EpubLimits = EpubLimits {
    max_entry_bytes: 1 << 20,
    max_total_bytes: 2 << 20,
};

/// A zip of `files` (deflated when `deflate`), with true CRCs and sizes.
fn zip(files: &[(String, Vec<u8>)], deflate: bool) -> Vec<u8> {
    let entries: Vec<ZipEntry<'_>> = files
        .iter()
        .map(|(name, content)| ZipEntry {
            name,
            content,
            deflate,
            declared_size: None,
        })
        .collect();
    write_zip(&entries)
}

/// An EPUB of `docs` (XHTML bodies) in spine order, with a nav naming each.
fn epub(docs: &[String], titles: &[String], deflate: bool) -> Vec<u8> {
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('"', "&quot;")
    };
    let items: String = (0..docs.len())
        .map(|i| format!(r#"<item id="d{i}" href="text/d{i}.xhtml" media-type="application/xhtml+xml"/>"#))
        .collect();
    let spine: String = (0..docs.len())
        .map(|i| format!(r#"<itemref idref="d{i}"/>"#))
        .collect();
    let links: String = titles
        .iter()
        .enumerate()
        .map(|(i, t)| format!(r#"<li><a href="text/d{i}.xhtml">{}</a></li>"#, escape(t)))
        .collect();
    let mut files = vec![
        ("mimetype".to_owned(), b"application/epub+zip".to_vec()),
        (
            "META-INF/container.xml".to_owned(),
            br#"<container><rootfiles><rootfile full-path="OPS/package.opf"/></rootfiles></container>"#.to_vec(),
        ),
        (
            "OPS/package.opf".to_owned(),
            format!(r#"<package><manifest><item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>{items}</manifest><spine>{spine}</spine></package>"#).into_bytes(),
        ),
        ("OPS/nav.xhtml".to_owned(), format!("<html><body><nav><ol>{links}</ol></nav></body></html>").into_bytes()),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let body = format!(
            "<html><head><title>x</title></head><body><p>{}</p></body></html>",
            escape(doc)
        );
        files.push((format!("OPS/text/d{i}.xhtml"), body.into_bytes()));
    }
    zip(&files, deflate)
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Text from many scripts, with spaces of every kind and sentence ends.
fn unicode_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z]{1,10}",
        "[\u{3041}-\u{3096}\u{4E00}-\u{4FFF}]{1,20}",
        "[\u{0621}-\u{064A}]{1,8}",
        prop::sample::select(vec![
            " ",
            "\n\n",
            "\u{a0}",
            "\u{3000}",
            ". ",
            "。",
            "؟ ",
            "👨‍👩‍👧",
            "🇯🇵",
            "e\u{301}",
            "\u{c}",
            "[[page 3]]"
        ])
        .prop_map(String::from),
        any::<char>().prop_map(String::from),
    ];
    vec(piece, 0..200).prop_map(|p| p.concat())
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(prop::sample::Index, u8),
    Insert(prop::sample::Index, Vec<u8>),
    Remove(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        1 => (any::<prop::sample::Index>(), vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<prop::sample::Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Remove(i, n)),
        1 => any::<prop::sample::Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    match m {
        Mutation::Set(i, b) if !bytes.is_empty() => bytes[i.index(len)] = *b,
        Mutation::Insert(i, b) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Remove(i, n) if !bytes.is_empty() => {
            let at = i.index(len);
            bytes.drain(at..(at + n).min(bytes.len()));
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(len)),
        _ => {}
    }
}

#[test]
fn the_fixtures_read_whole() {
    for book in unicode_books::books() {
        let pages = pages_from_epub(book.epub, 2000).unwrap();
        let text: String = pages.iter().map(|p| p.text.as_str()).collect();
        for (_, passage, _) in book.searches {
            let words: Vec<&str> = passage.split_whitespace().collect();
            assert!(text.contains(&words.join(" ")), "{}: {passage}", book.name);
        }
    }
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn any_bytes_give_pages_or_a_config_error(bytes in vec(any::<u8>(), 0..2000)) {
        fuzz_entry::epub(&bytes);
        let mut zipped = b"PK\x05\x06".to_vec();
        zipped.extend_from_slice(&bytes);
        fuzz_entry::epub(&zipped);
    }

    #[test]
    fn mutated_fixtures_give_pages_or_a_config_error(which in 0usize..5, mutations in vec(mutation(), 1..6)) {
        let mut bytes = unicode_books::books()[which].epub.to_vec();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        let _ = fuzz_entry::check_epub(&bytes, 200, &LIMITS);
    }

    #[test]
    fn generated_epubs_give_back_their_text(docs in vec(unicode_text(), 1..5), deflate in any::<bool>(), page_chars in 0usize..600) {
        let titles: Vec<String> = (0..docs.len()).map(|i| format!("章 {i} « & »")).collect();
        let bytes = epub(&docs, &titles, deflate);
        let readable = docs.iter().any(|d| !d.trim().is_empty());
        match fuzz_entry::check_epub(&bytes, page_chars, &LIMITS) {
            Ok(pages) => {
                let text: String = pages.iter().map(|p| squeeze(&p.text)).collect();
                let expected: String = docs.iter().map(|d| squeeze(&d.replace('\u{c}', "").replace("[[page 3]]", ""))).collect();
                prop_assert_eq!(text, expected);
                for page in &pages {
                    let chapter = page.chapter.as_deref().unwrap_or_default();
                    prop_assert!(chapter.starts_with("章 ") && chapter.ends_with(" « & »"), "{}", chapter);
                }
            }
            Err(error) => prop_assert!(!readable, "{}", error),
        }
    }
}
