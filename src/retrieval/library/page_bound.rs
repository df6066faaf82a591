//! A page bound as a prefix. Chunks are cut in reading order, so the page
//! each ends on never decreases along them, and the chunks that end on or
//! before a page are the first ones: a binary search finds how many.

use crate::domain::Chunk;

/// Whether the chunks' end pages never decrease (what [`eligible_prefix`]
/// relies on; `chunk_pages` makes them so, since page numbers ascend).
pub fn ends_ascending(chunks: &[Chunk]) -> bool {
    chunks.windows(2).all(|pair| pair[0].end_page <= pair[1].end_page)
}

/// How many chunks end on or before `max_page` (all of them without a
/// bound), or `None` when the end pages are not ascending and the chunks
/// must be checked one by one.
pub fn eligible_prefix(chunks: &[Chunk], ascending: bool, max_page: Option<u32>) -> Option<usize> {
    match max_page {
        None => Some(chunks.len()),
        Some(max) if ascending => Some(chunks.partition_point(|c| c.end_page <= max)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(ends: &[u32]) -> Vec<Chunk> {
        ends.iter()
            .enumerate()
            .map(|(i, &end)| Chunk {
                ordinal: i as u32,
                text: String::new(),
                start_page: end.saturating_sub(1).max(1),
                end_page: end,
                chapter: None,
            })
            .collect()
    }

    #[test]
    fn the_prefix_is_the_eligible_chunks() {
        let book = chunks(&[1, 1, 2, 3, 3, 3, 5, 8]);
        assert!(ends_ascending(&book));
        for max in 0..10 {
            let filtered = book.iter().filter(|c| c.end_page <= max).count();
            assert_eq!(
                eligible_prefix(&book, true, Some(max)),
                Some(filtered),
                "max page {max}"
            );
        }
        assert_eq!(eligible_prefix(&book, true, None), Some(8));
        assert_eq!(eligible_prefix(&[], true, Some(3)), Some(0));
    }

    #[test]
    fn chunks_out_of_page_order_are_not_a_prefix() {
        let book = chunks(&[1, 4, 2]);
        assert!(!ends_ascending(&book));
        assert_eq!(eligible_prefix(&book, false, Some(2)), None);
        assert_eq!(eligible_prefix(&book, false, None), Some(3));
    }
}
