//! EPUB ingestion: the zip container, the package (OPF) for the spine order,
//! the navigation (EPUB 3 `nav` or EPUB 2 NCX) for chapter titles, and the
//! XHTML documents' text, cut into synthetic pages chapter by chapter.

use std::collections::HashMap;

use crate::domain::Page;
use crate::error::Result;
use crate::retrieval::formats::zip::{malformed, Zip};
use crate::retrieval::text::markup::{attr, tokens, xhtml_text, Token};
use crate::retrieval::text::pages::pages_from_text;

/// Caps on what an EPUB may inflate to: a zip bomb is a `ConfigError`, not
/// an exhausted memory. The sizes the archive declares are not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpubLimits {
    /// Most bytes one file of the archive may inflate to (default 32 MiB).
    pub max_entry_bytes: usize,
    /// Most bytes all the files read may inflate to together (default 64 MiB).
    pub max_total_bytes: usize,
}

impl Default for EpubLimits {
    fn default() -> Self {
        EpubLimits {
            max_entry_bytes: 32 << 20,
            max_total_bytes: 64 << 20,
        }
    }
}

/// `href` with `%XX` escapes decoded as UTF-8 (invalid sequences become U+FFFD).
fn percent_decode(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| bytes[i] == b'%' && h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base`'s folder joined with a relative `href` (percent-escapes decoded, `#fragment` dropped).
fn resolve(base: &str, href: &str) -> String {
    let href = percent_decode(href.split('#').next().unwrap_or(""));
    let mut parts: Vec<&str> = base
        .rsplit_once('/')
        .map_or(vec![], |(dir, _)| dir.split('/').collect());
    for part in href.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// Titles by target document from an EPUB 3 nav document's links.
fn nav_titles(nav: &str, path: &str, titles: &mut HashMap<String, String>) {
    let mut href: Option<String> = None;
    let mut label = String::new();
    for token in tokens(nav) {
        match token {
            Token::Start { name, attrs } if name == "a" => {
                href = attr(&attrs, "href").map(|h| resolve(path, h));
                label.clear();
            }
            Token::Text(t) if href.is_some() => label.push_str(&t),
            Token::End { name } if name == "a" => {
                if let Some(target) = href.take() {
                    let title = label.split_whitespace().collect::<Vec<_>>().join(" ");
                    titles.entry(target).or_insert(title);
                }
            }
            _ => {}
        }
    }
}

/// Titles by target document from an EPUB 2 NCX's navigation points.
fn ncx_titles(ncx: &str, path: &str, titles: &mut HashMap<String, String>) {
    let mut label = String::new();
    let mut in_text = false;
    for token in tokens(ncx) {
        match token {
            Token::Start { name, .. } if name == "text" => {
                in_text = true;
                label.clear();
            }
            Token::End { name } if name == "text" => in_text = false,
            Token::Text(t) if in_text => label.push_str(&t),
            Token::Start { name, attrs } if name == "content" => {
                if let Some(src) = attr(&attrs, "src") {
                    titles
                        .entry(resolve(path, src))
                        .or_insert_with(|| label.trim().to_owned());
                }
            }
            _ => {}
        }
    }
}

/// Chapter titles by document path, from an EPUB 3 nav document or else an
/// EPUB 2 NCX. A missing navigation file means no titles; a corrupt one is an error.
fn chapter_titles(
    zip: &Zip<'_>,
    nav_path: Option<String>,
    ncx_path: Option<String>,
) -> Result<HashMap<String, String>> {
    let mut titles = HashMap::new();
    if let Some(path) = nav_path.filter(|p| zip.contains(p)) {
        nav_titles(&zip.text(&path)?, &path, &mut titles);
    }
    if let (true, Some(path)) = (titles.is_empty(), ncx_path.filter(|p| zip.contains(p))) {
        ncx_titles(&zip.text(&path)?, &path, &mut titles);
    }
    Ok(titles)
}

/// The package document's path, from `META-INF/container.xml`.
fn rootfile(container: &str) -> Result<String> {
    tokens(container)
        .into_iter()
        .find_map(|t| match t {
            Token::Start { name, attrs } if name == "rootfile" => {
                attr(&attrs, "full-path").map(str::to_owned)
            }
            _ => None,
        })
        .ok_or_else(|| malformed("container.xml names no package (rootfile)"))
}

/// What the package (OPF) says.
struct Package {
    /// id -> (path, media type, properties).
    manifest: HashMap<String, (String, String, String)>,
    /// Manifest ids in reading order (`linear="no"` left out).
    spine: Vec<String>,
    /// The manifest id of the EPUB 2 NCX.
    toc_id: Option<String>,
}

/// Reads the package document at `opf_path`.
fn package(opf: &str, opf_path: &str) -> Package {
    let mut package = Package {
        manifest: HashMap::new(),
        spine: Vec::new(),
        toc_id: None,
    };
    for token in tokens(opf) {
        let Token::Start { name, attrs } = token else {
            continue;
        };
        match name.as_str() {
            "item" => {
                if let (Some(id), Some(href)) = (attr(&attrs, "id"), attr(&attrs, "href")) {
                    let media = attr(&attrs, "media-type").unwrap_or("").to_owned();
                    let properties = attr(&attrs, "properties").unwrap_or("").to_owned();
                    let entry = (resolve(opf_path, href), media, properties);
                    package.manifest.insert(id.to_owned(), entry);
                }
            }
            "spine" => package.toc_id = attr(&attrs, "toc").map(str::to_owned),
            "itemref" if attr(&attrs, "linear") != Some("no") => {
                if let Some(idref) = attr(&attrs, "idref") {
                    package.spine.push(idref.to_owned());
                }
            }
            _ => {}
        }
    }
    package
}

/// The pages of an EPUB file: its documents in spine order, markup stripped,
/// cut into pages of about `page_chars`; each page knows its chapter.
/// Any bytes give pages or a `ConfigError`, within the default [`EpubLimits`].
pub fn pages_from_epub(bytes: &[u8], page_chars: usize) -> Result<Vec<Page>> {
    pages_from_epub_with_limits(bytes, page_chars, &EpubLimits::default())
}

/// [`pages_from_epub`] within `limits`.
pub fn pages_from_epub_with_limits(
    bytes: &[u8],
    page_chars: usize,
    limits: &EpubLimits,
) -> Result<Vec<Page>> {
    let zip = Zip::open(bytes, limits.max_entry_bytes, limits.max_total_bytes)?;
    let opf_path = rootfile(&zip.text("META-INF/container.xml")?)?;
    let Package {
        manifest,
        spine,
        toc_id,
    } = package(&zip.text(&opf_path)?, &opf_path);
    if spine.is_empty() {
        return Err(malformed("the package has an empty spine"));
    }
    let nav = manifest
        .values()
        .find(|(_, _, props)| props.split_whitespace().any(|p| p == "nav"))
        .map(|(path, _, _)| path.clone());
    let ncx = toc_id.and_then(|id| manifest.get(&id).map(|(path, _, _)| path.clone()));
    let titles = chapter_titles(&zip, nav, ncx)?;

    let mut pages: Vec<Page> = Vec::new();
    let mut chapter: Option<String> = None;
    for idref in &spine {
        let (path, media, _) = manifest
            .get(idref)
            .ok_or_else(|| malformed(format!("the spine names {idref}, which the manifest lacks")))?;
        if !(media.contains("html") || media.is_empty()) {
            continue;
        }
        if let Some(title) = titles.get(path).filter(|t| !t.is_empty()) {
            chapter = Some(title.clone());
        }
        let text = xhtml_text(&zip.text(path)?);
        if text.trim().is_empty() {
            continue;
        }
        for mut page in pages_from_text(&text, page_chars) {
            page.number = pages.len() as u32 + 1;
            page.chapter = chapter.clone();
            pages.push(page);
        }
    }
    if pages.is_empty() {
        return Err(malformed("no readable text in the spine's documents"));
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::retrieval::formats::zip_writer::{write_zip, ZipEntry};

    /// A zip of `files`, deflated or stored alternately.
    pub fn zip(files: &[(&str, &str)]) -> Vec<u8> {
        let files: Vec<_> = files.iter().map(|(n, c)| (*n, c.as_bytes(), None)).collect();
        zip_bytes(&files)
    }

    /// A zip of `(name, content, declared size)`, deflated or stored
    /// alternately: the declared size defaults to the real one.
    fn zip_bytes(files: &[(&str, &[u8], Option<u32>)]) -> Vec<u8> {
        let entries: Vec<ZipEntry<'_>> = files
            .iter()
            .enumerate()
            .map(|(i, &(name, content, declared_size))| ZipEntry {
                name,
                content,
                deflate: i % 2 == 1,
                declared_size,
            })
            .collect();
        write_zip(&entries)
    }

    pub fn sample_epub() -> Vec<u8> {
        zip(&[
            ("mimetype", "application/epub+zip"),
            (
                "META-INF/container.xml",
                r#"<?xml version="1.0"?><container><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
            ),
            (
                "OEBPS/content.opf",
                r#"<package><manifest>
                    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
                    <item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/>
                    <item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/>
                    <item id="css" href="style.css" media-type="text/css"/>
                  </manifest><spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="nav" linear="no"/></spine></package>"#,
            ),
            (
                "OEBPS/nav.xhtml",
                r#"<html><body><nav epub:type="toc"><ol><li><a href="text/one.xhtml">The Two Poets</a></li><li><a href="text/two.xhtml#s">The Secret</a></li></ol></nav></body></html>"#,
            ),
            (
                "OEBPS/text/one.xhtml",
                "<html><body><h1>I</h1><p>Syme met Gregory in the <em>garden</em>.</p></body></html>",
            ),
            (
                "OEBPS/text/two.xhtml",
                "<html><body><p>Gregory kept a secret &amp; a promise.</p></body></html>",
            ),
        ])
    }

    #[test]
    fn reads_spine_order_chapters_and_text() {
        let pages = pages_from_epub(&sample_epub(), 2000).unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].text, "I\n\nSyme met Gregory in the garden.");
        assert_eq!(pages[0].chapter.as_deref(), Some("The Two Poets"));
        assert_eq!(pages[1].text, "Gregory kept a secret & a promise.");
        assert_eq!(pages[1].chapter.as_deref(), Some("The Secret"));
        assert_eq!(pages[1].number, 2);
    }

    #[test]
    fn malformed_files_are_config_errors() {
        for bytes in [
            &b""[..],
            b"not a zip at all, just text",
            &zip(&[("mimetype", "x")])[..],
        ] {
            let err = pages_from_epub(bytes, 2000).unwrap_err();
            assert_eq!(err.name(), "ConfigError");
            assert!(err.to_string().contains("malformed EPUB"), "{err}");
        }
        let mut truncated = sample_epub();
        truncated.truncate(truncated.len() / 2);
        assert!(pages_from_epub(&truncated, 2000).is_err());
    }

    const CONTAINER: &str =
        r#"<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>"#;
    const OPF: &str = r#"<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/><itemref idref="a"/><itemref idref="a"/></spine></package>"#;

    #[test]
    fn a_zip_bomb_is_a_config_error_whatever_size_it_declares() {
        // 40 MiB of spaces after the container: deflates to ~40 KB; declared as 4 GiB or as 100 bytes.
        let mut padded = CONTAINER.as_bytes().to_vec();
        padded.resize(40 << 20, b' ');
        for declared in [u32::MAX, 100] {
            let bytes = zip_bytes(&[
                ("mimetype", b"application/epub+zip", None),
                ("META-INF/container.xml", &padded, Some(declared)),
            ]);
            assert!(bytes.len() < 100_000);
            let err = pages_from_epub(&bytes, 2000).unwrap_err();
            assert_eq!(err.name(), "ConfigError");
            assert!(err.to_string().contains("META-INF/container.xml"), "{err}");
            assert!(err.to_string().contains("larger than"), "{err}");
        }
    }

    #[test]
    fn the_total_inflated_size_is_capped() {
        let doc = format!("<p>{}</p>", "word ".repeat(2000));
        let bytes = zip_bytes(&[
            ("mimetype", b"application/epub+zip", None),
            ("META-INF/container.xml", CONTAINER.as_bytes(), None),
            ("content.opf", OPF.as_bytes(), None),
            ("a.xhtml", doc.as_bytes(), None),
        ]);
        let roomy = EpubLimits {
            max_entry_bytes: 20_000,
            max_total_bytes: 40_000,
        };
        assert_eq!(
            pages_from_epub_with_limits(&bytes, 2000, &roomy).unwrap().len(),
            15
        );
        let tight = EpubLimits {
            max_entry_bytes: 20_000,
            max_total_bytes: 25_000,
        };
        let err = pages_from_epub_with_limits(&bytes, 2000, &tight).unwrap_err();
        assert_eq!(err.name(), "ConfigError");
        assert!(err.to_string().contains("larger than"), "{err}");
        let small_entries = EpubLimits {
            max_entry_bytes: 5_000,
            max_total_bytes: 1 << 20,
        };
        let err = pages_from_epub_with_limits(&bytes, 2000, &small_entries).unwrap_err();
        assert!(err.to_string().contains("a.xhtml"), "{err}");
    }

    #[test]
    fn a_crc_mismatch_names_the_entry() {
        let good = sample_epub();
        assert!(pages_from_epub(&good, 2000).is_ok());
        // "garden" is stored (not deflated) in one.xhtml: change one letter.
        let at = good.windows(6).position(|w| w == b"garden").unwrap();
        let mut bad = good.clone();
        bad[at] = b'h';
        let err = pages_from_epub(&bad, 2000).unwrap_err();
        assert_eq!(err.name(), "ConfigError");
        assert!(err.to_string().contains("OEBPS/text/one.xhtml"), "{err}");
        assert!(err.to_string().contains("CRC-32"), "{err}");
    }

    #[test]
    fn percent_encoded_hrefs_name_unicode_files() {
        let bytes = zip(&[
            ("mimetype", "application/epub+zip"),
            ("META-INF/container.xml", CONTAINER),
            (
                "content.opf",
                r#"<package><manifest><item id="n" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/><item id="a" href="text/%E7%AB%A0%201.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>"#,
            ),
            (
                "nav.xhtml",
                r#"<nav><ol><li><a href="text/%e7%ab%a0%201.xhtml#top">第一章</a></li></ol></nav>"#,
            ),
            ("text/章 1.xhtml", "<p>本文です。</p>"),
        ]);
        let pages = pages_from_epub(&bytes, 2000).unwrap();
        assert_eq!(pages[0].text, "本文です。");
        assert_eq!(pages[0].chapter.as_deref(), Some("第一章"));
        assert_eq!(resolve("a/b.opf", "c%2"), "a/c%2");
        assert_eq!(resolve("a/b.opf", "c%+1"), "a/c%+1");
        assert_eq!(resolve("a/b.opf", "%FF%41"), "a/\u{FFFD}A");
    }
}
