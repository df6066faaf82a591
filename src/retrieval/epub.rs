//! EPUB ingestion: the zip container, the package (OPF) for the spine order,
//! the navigation (EPUB 3 `nav` or EPUB 2 NCX) for chapter titles, and the
//! XHTML documents' text, cut into synthetic pages chapter by chapter.

use std::collections::HashMap;

use super::markup::{attr, tokens, xhtml_text, Token};
use super::pages::{pages_from_text, Page};
use crate::error::{Error, Result};

fn malformed(what: impl std::fmt::Display) -> Error {
    Error::config(format!("malformed EPUB: {what}"))
}

fn u16_at(bytes: &[u8], at: usize) -> Result<usize> {
    bytes
        .get(at..at + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
        .ok_or_else(|| malformed("truncated zip structure"))
}

fn u32_at(bytes: &[u8], at: usize) -> Result<usize> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| malformed("truncated zip structure"))
}

/// A zip archive's entries, read from its central directory.
struct Zip<'a> {
    bytes: &'a [u8],
    entries: HashMap<String, (usize, usize, usize, usize)>, // name -> (method, compressed, size, local header)
}

impl<'a> Zip<'a> {
    fn open(bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < 22 {
            return Err(malformed("too short to be a zip file"));
        }
        let search_from = bytes.len().saturating_sub(22 + 65_535);
        let eocd = (search_from..=bytes.len() - 22)
            .rev()
            .find(|&i| bytes[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])
            .ok_or_else(|| malformed("no zip end-of-central-directory record (not a zip file)"))?;
        let count = u16_at(bytes, eocd + 10)?;
        let mut at = u32_at(bytes, eocd + 16)?;
        let mut entries = HashMap::new();
        for _ in 0..count {
            if bytes.get(at..at + 4) != Some(&[0x50, 0x4b, 0x01, 0x02]) {
                return Err(malformed("bad zip central directory entry"));
            }
            let method = u16_at(bytes, at + 10)?;
            let compressed = u32_at(bytes, at + 20)?;
            let size = u32_at(bytes, at + 24)?;
            let name_len = u16_at(bytes, at + 28)?;
            let extra_len = u16_at(bytes, at + 30)?;
            let comment_len = u16_at(bytes, at + 32)?;
            let local = u32_at(bytes, at + 42)?;
            let name = bytes
                .get(at + 46..at + 46 + name_len)
                .ok_or_else(|| malformed("truncated file name"))?;
            entries.insert(
                String::from_utf8_lossy(name).into_owned(),
                (method, compressed, size, local),
            );
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Zip { bytes, entries })
    }

    fn read(&self, name: &str) -> Result<Vec<u8>> {
        let &(method, compressed, size, local) = self
            .entries
            .get(name)
            .ok_or_else(|| malformed(format!("missing file {name}")))?;
        if self.bytes.get(local..local + 4) != Some(&[0x50, 0x4b, 0x03, 0x04]) {
            return Err(malformed(format!("bad local header for {name}")));
        }
        let start = local + 30 + u16_at(self.bytes, local + 26)? + u16_at(self.bytes, local + 28)?;
        let data = self
            .bytes
            .get(start..start + compressed)
            .ok_or_else(|| malformed(format!("{name} is truncated")))?;
        match method {
            0 => Ok(data.to_vec()),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, size.max(1) * 2 + 1024)
                .map_err(|e| malformed(format!("{name} does not inflate: {e:?}"))),
            other => Err(malformed(format!(
                "{name} uses unsupported compression method {other}"
            ))),
        }
    }

    fn text(&self, name: &str) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.read(name)?).into_owned())
    }
}

/// `base`'s folder joined with a relative `href` (`%20` decoded, `#fragment` dropped).
fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or("").replace("%20", " ");
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

/// Chapter titles by document path, from an EPUB 3 nav document or an EPUB 2 NCX.
fn chapter_titles(
    zip: &Zip<'_>,
    nav_path: Option<String>,
    ncx_path: Option<String>,
) -> HashMap<String, String> {
    let mut titles = HashMap::new();
    if let Some(path) = nav_path {
        if let Ok(nav) = zip.text(&path) {
            let mut href: Option<String> = None;
            let mut label = String::new();
            for token in tokens(&nav) {
                match token {
                    Token::Start { name, attrs } if name == "a" => {
                        href = attr(&attrs, "href").map(|h| resolve(&path, h));
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
    }
    if let (true, Some(path)) = (titles.is_empty(), ncx_path) {
        if let Ok(ncx) = zip.text(&path) {
            let mut label = String::new();
            let mut in_text = false;
            for token in tokens(&ncx) {
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
                                .entry(resolve(&path, src))
                                .or_insert_with(|| label.trim().to_owned());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    titles
}

/// The pages of an EPUB file: its documents in spine order, markup stripped,
/// cut into pages of about `page_chars`; each page knows its chapter.
pub fn pages_from_epub(bytes: &[u8], page_chars: usize) -> Result<Vec<Page>> {
    let zip = Zip::open(bytes)?;
    let container = zip.text("META-INF/container.xml")?;
    let opf_path = tokens(&container)
        .into_iter()
        .find_map(|t| match t {
            Token::Start { name, attrs } if name == "rootfile" => {
                attr(&attrs, "full-path").map(str::to_owned)
            }
            _ => None,
        })
        .ok_or_else(|| malformed("container.xml names no package (rootfile)"))?;
    let opf = zip.text(&opf_path)?;
    let mut manifest: HashMap<String, (String, String, String)> = HashMap::new(); // id -> (path, media type, properties)
    let mut spine: Vec<String> = Vec::new();
    let mut toc_id: Option<String> = None;
    for token in tokens(&opf) {
        if let Token::Start { name, attrs } = token {
            match name.as_str() {
                "item" => {
                    if let (Some(id), Some(href)) = (attr(&attrs, "id"), attr(&attrs, "href")) {
                        let media = attr(&attrs, "media-type").unwrap_or("").to_owned();
                        let properties = attr(&attrs, "properties").unwrap_or("").to_owned();
                        manifest.insert(id.to_owned(), (resolve(&opf_path, href), media, properties));
                    }
                }
                "spine" => toc_id = attr(&attrs, "toc").map(str::to_owned),
                "itemref" if attr(&attrs, "linear") != Some("no") => {
                    if let Some(idref) = attr(&attrs, "idref") {
                        spine.push(idref.to_owned());
                    }
                }
                _ => {}
            }
        }
    }
    if spine.is_empty() {
        return Err(malformed("the package has an empty spine"));
    }
    let nav = manifest
        .values()
        .find(|(_, _, props)| props.split_whitespace().any(|p| p == "nav"))
        .map(|(path, _, _)| path.clone());
    let ncx = toc_id.and_then(|id| manifest.get(&id).map(|(path, _, _)| path.clone()));
    let titles = chapter_titles(&zip, nav, ncx);

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

    /// A zip of `files`, deflated or stored alternately (CRCs are not checked on read).
    pub fn zip(files: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (i, (name, content)) in files.iter().enumerate() {
            let deflate = i % 2 == 1;
            let data = if deflate {
                miniz_oxide::deflate::compress_to_vec(content.as_bytes(), 6)
            } else {
                content.as_bytes().to_vec()
            };
            let offset = out.len() as u32;
            let method: u16 = if deflate { 8 } else { 0 };
            out.extend_from_slice(&[0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]);
            out.extend_from_slice(&method.to_le_bytes());
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(content.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&data);
            central.extend_from_slice(&[0x50, 0x4b, 0x01, 0x02, 20, 0, 20, 0, 0, 0]);
            central.extend_from_slice(&method.to_le_bytes());
            central.extend_from_slice(&[0; 8]);
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(content.len() as u32).to_le_bytes());
            central.extend_from_slice(&(name.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0; 12]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let cd_offset = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
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
}
