//! Cutting a book's text into pages, and finding its chapters.
//!
//! Pages come from an explicit list, from form-feed or `[[page N]]` markers
//! in the text, or else are made every ~`page_chars` characters, never
//! splitting a word (CJK text, written without spaces, may be cut between
//! any two characters).

use crate::domain::Page;
use crate::retrieval::text::breaks::{char_offset, cluster_cut, last_break, next_break};
use crate::retrieval::text::sentences::sentence_ends;

/// Pages from text: markers if it has any, else synthetic pages of about `page_chars`.
pub fn pages_from_text(text: &str, page_chars: usize) -> Vec<Page> {
    if text.contains('\u{000C}') {
        return numbered(text.split('\u{000C}').map(str::to_owned).collect());
    }
    if let Some(pages) = marked_pages(text) {
        return pages;
    }
    synthetic_pages(text, page_chars)
}

/// Pages as given (empty pages keep their number).
pub fn pages_from_list(pages: Vec<String>) -> Vec<Page> {
    numbered(pages)
}

fn numbered(texts: Vec<String>) -> Vec<Page> {
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| Page {
            number: i as u32 + 1,
            text,
            chapter: None,
        })
        .collect()
}

/// Splits at `[[page N]]` markers; text before the first marker joins page 1.
fn marked_pages(text: &str) -> Option<Vec<Page>> {
    let mut pages: Vec<Page> = Vec::new();
    let mut rest = text;
    let mut current: Option<u32> = None;
    let mut before_first = String::new();
    while let Some(start) = rest.find("[[page ") {
        let after = &rest[start + 7..];
        let Some(end) = after.find("]]") else { break };
        let Ok(number) = after[..end].trim().parse::<u32>() else {
            // Not a marker: keep it as text.
            let keep = start + 7;
            push_text(&mut pages, &mut before_first, current, &rest[..keep]);
            rest = &rest[keep..];
            continue;
        };
        push_text(&mut pages, &mut before_first, current, &rest[..start]);
        current = Some(number.max(1));
        pages.push(Page {
            number: number.max(1),
            text: std::mem::take(&mut before_first),
            chapter: None,
        });
        rest = &after[end + 2..];
    }
    current?;
    push_text(&mut pages, &mut before_first, current, rest);
    // Markers may skip or repeat numbers; keep them increasing.
    let mut last: u32 = 0;
    for page in &mut pages {
        page.number = page.number.max(last.saturating_add(1));
        last = page.number;
    }
    Some(pages)
}

fn push_text(pages: &mut [Page], before_first: &mut String, current: Option<u32>, text: &str) {
    match (current, pages.last_mut()) {
        (Some(_), Some(page)) => page.text.push_str(text),
        _ => before_first.push_str(text),
    }
}

/// Pages of about `page_chars` characters (at least 200). Each is cut at
/// the last paragraph break in its second half, else the last sentence end
/// in its second half, else its last break opportunity (whitespace, or
/// between CJK characters); a word that crosses the limit ends its page, and
/// text without breaks for another page is cut between characters.
/// Whitespace after a cut joins the page before it (whitespace the text
/// starts with, the page after it).
fn synthetic_pages(text: &str, page_chars: usize) -> Vec<Page> {
    let page_chars = page_chars.max(200);
    let mut pages = Vec::new();
    let mut rest = text;
    while !rest.trim().is_empty() {
        // Whitespace the text starts with joins its first page, uncounted.
        let lead = rest.len() - rest.trim_start().len();
        let body = &rest[lead..];
        let limit = char_offset(body, page_chars);
        if limit == body.len() {
            pages.push(rest.to_owned());
            break;
        }
        let cut = lead + page_cut(body, limit, page_chars);
        // Whitespace after the cut stays on this page: no page is only whitespace.
        let next = rest[cut..].trim_start();
        pages.push(rest[..rest.len() - next.len()].to_owned());
        rest = next;
    }
    numbered(pages)
}

/// Where the page that starts `text` ends, `limit` being the offset just
/// past its last allowed character (`page_chars` in). A word that crosses the
/// limit ends the page; text with no break opportunity for another page's
/// length (Thai, a run of symbols) is cut at the limit between characters.
fn page_cut(text: &str, limit: usize, page_chars: usize) -> usize {
    let half = page_chars / 2;
    let window = &text[..limit];
    let in_second_half = |&at: &usize| window[..at].chars().count() > half;
    if let Some(at) = window.rfind("\n\n").filter(in_second_half) {
        return at + 2;
    }
    // Look a few characters past the page, enough to tell "3.5" from "3. 5".
    let ahead = limit + char_offset(&text[limit..], 4);
    let sentence_end = sentence_ends(&text[..ahead])
        .take_while(|&end| end <= limit)
        .last()
        .filter(in_second_half);
    if let Some(end) = sentence_end {
        return end;
    }
    // The end of the word that crosses the limit, if within another page.
    let word_end = || {
        let reach = limit + char_offset(&text[limit..], page_chars);
        next_break(&text[..reach], limit).or((reach == text.len()).then_some(reach))
    };
    last_break(text, limit)
        .or_else(word_end)
        .unwrap_or_else(|| cluster_cut(text, limit))
}

/// Whether a line opens a chapter ("CHAPTER I.", "Chapter 12", "BOOK II").
pub fn chapter_heading(line: &str) -> bool {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return false;
    };
    let keyword = matches!(first.to_ascii_lowercase().as_str(), "chapter" | "book" | "part");
    let number = second.trim_end_matches(['.', ':']);
    let numeral = !number.is_empty()
        && (number.chars().all(|c| c.is_ascii_digit())
            || number
                .chars()
                .all(|c| matches!(c.to_ascii_uppercase(), 'I' | 'V' | 'X' | 'L' | 'C')));
    keyword && numeral && line.len() <= 120
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_feeds_and_markers_make_pages() {
        let pages = pages_from_text("one\u{000C}two\u{000C}three", 2000);
        assert_eq!(
            pages
                .iter()
                .map(|p| (p.number, p.text.as_str()))
                .collect::<Vec<_>>(),
            [(1, "one"), (2, "two"), (3, "three")]
        );
        let pages = pages_from_text("Title\n[[page 1]]First page.\n[[page 2]]Second page.", 2000);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].text, "Title\nFirst page.\n");
        assert_eq!(pages[1].text, "Second page.");
    }

    #[test]
    fn synthetic_pages_never_split_words() {
        let text = "word ".repeat(2000);
        let pages = pages_from_text(&text, 1000);
        assert!(pages.len() >= 10);
        for page in &pages {
            assert!(page.text.len() <= 1000);
            assert!(page.text.starts_with("word"), "{:?}", &page.text[..10]);
        }
        assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
    }

    #[test]
    fn multibyte_text_cuts_on_char_boundaries() {
        let text = "é".repeat(1500) + " end";
        let pages = pages_from_text(&text, 500);
        assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
    }

    #[test]
    fn synthetic_pages_prefer_sentence_ends() {
        let text = "The lamp was lit and the room grew warm again. ".repeat(40);
        let pages = pages_from_text(&text, 300);
        assert!(pages.len() > 5);
        for page in &pages {
            assert!(page.text.ends_with("again. "), "{:?}", page.text);
        }
        let japanese = "吾輩は猫である。名前はまだ無い。".repeat(40);
        for page in pages_from_text(&japanese, 200) {
            assert!(page.text.ends_with('。'), "{:?}", page.text);
        }
    }

    #[test]
    fn no_page_is_only_whitespace() {
        let text = format!("{}.\n\n \n{}", "x".repeat(150), "y".repeat(300));
        let pages = pages_from_text(&text, 200);
        assert!(pages.iter().all(|p| !p.text.trim().is_empty()), "{pages:?}");
        assert_eq!(pages.len(), 2);
        assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
        // Blank lines before the first word: they join the first page.
        let text = format!("\n\n\n{}", "x".repeat(300));
        let pages = pages_from_text(&text, 200);
        assert!(pages.iter().all(|p| !p.text.trim().is_empty()), "{pages:?}");
        assert_eq!(pages[0].text, text);
    }

    #[test]
    fn marker_numbers_do_not_overflow() {
        let pages = pages_from_text("[[page 4294967295]]a[[page 1]]b", 2000);
        let numbers: Vec<u32> = pages.iter().map(|p| p.number).collect();
        assert_eq!(numbers, [u32::MAX, u32::MAX]);
    }

    #[test]
    fn chapter_headings() {
        assert!(chapter_heading("CHAPTER I. THE TWO POETS OF SAFFRON PARK"));
        assert!(chapter_heading("Chapter 12"));
        assert!(!chapter_heading("The chapter ended."));
        assert!(!chapter_heading("CHAPTER"));
    }

    #[test]
    fn no_break_and_ideographic_spaces_cut_on_char_boundaries() {
        for space in ["\u{a0}", "\u{3000}", "\u{2003}", "\u{1680}"] {
            let text = format!("{space}吾輩は猫である{space}word").repeat(300);
            let pages = pages_from_text(&text, 200);
            assert!(pages.len() > 10, "{space:?}: {}", pages.len());
            assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
        }
    }

    #[test]
    fn text_without_break_opportunities_still_makes_pages() {
        // Thai is written without spaces between words; a run of `、` allows no break.
        for text in ["สวัสดีครับ".repeat(300), "、".repeat(3000), "x".repeat(3000)] {
            let pages = pages_from_text(&text, 500);
            assert!(pages.len() >= 5, "{} pages", pages.len());
            for (i, page) in pages.iter().enumerate() {
                // The last "word" ends the text: it may take up to another page.
                let most = if i + 1 == pages.len() { 1000 } else { 500 };
                assert!(page.text.chars().count() <= most, "{}", page.text.chars().count());
                // Thai vowel and tone marks stay with their consonant.
                assert!(
                    !page.text.starts_with(['\u{E31}', '\u{E35}']),
                    "{:?}",
                    &page.text[..9]
                );
            }
            assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
        }
        // A word that crosses the limit still ends its page.
        let text = format!("{} {} end", "a".repeat(600), "b".repeat(300));
        let pages = pages_from_text(&text, 500);
        assert_eq!(pages[0].text.chars().count(), 601, "{:?}", pages[0].text);
    }

    #[test]
    fn text_without_spaces_is_cut_between_cjk_characters() {
        let text = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。".repeat(100);
        let pages = pages_from_text(&text, 500);
        let chars = text.chars().count();
        assert!(pages.len() >= chars / 500, "{} pages", pages.len());
        for page in &pages {
            assert!(page.text.chars().count() <= 500, "{}", page.text.chars().count());
        }
        assert_eq!(pages.iter().map(|p| p.text.as_str()).collect::<String>(), text);
        // Page size counts characters, not bytes: Arabic (2 bytes a letter) fills pages.
        let arabic = "كان يا ما كان في قديم الزمان ".repeat(200);
        for page in pages_from_text(&arabic, 1000).iter().rev().skip(1) {
            assert!(page.text.chars().count() > 900, "{}", page.text.chars().count());
        }
    }
}
