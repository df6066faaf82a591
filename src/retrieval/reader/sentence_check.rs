//! The gate on every sentence of an answer: its citations (`[2]`, the
//! numbers of the passages its system message numbered) read off, and its
//! names and content words checked against the passages it cites — or all
//! of them when it cites none: supported when it names nothing they do not
//! and at most half its content words are missing from them.

use crate::domain::SentenceCheck;
use crate::retrieval::reader::grounding::word_support;
use crate::retrieval::text::sentences::split_sentences;

/// Each sentence of `answer` checked: `passages` are the answer's sources'
/// texts, `cited(n)` the index among them of the passage numbered `n` in the
/// prompt (`None`: a number the prompt did not give). A citation that opens a
/// sentence ("… poet. [2] He …") belongs to the sentence before.
pub fn check_sentences(
    answer: &str,
    question: &str,
    passages: &[&str],
    cited: impl Fn(u32) -> Option<usize>,
) -> Vec<SentenceCheck> {
    let mut sentences: Vec<(String, Vec<u32>)> = Vec::new();
    for sentence in split_sentences(answer) {
        let (leading, rest) = leading_citations(sentence);
        if let Some(last) = sentences.last_mut().filter(|_| !leading.is_empty()) {
            last.0.push(' ');
            last.0
                .push_str(sentence[..sentence.len() - rest.len()].trim_end());
            last.1.extend(leading);
        }
        if !rest.trim().is_empty() {
            sentences.push((rest.to_owned(), citations(rest)));
        }
    }
    sentences
        .into_iter()
        .map(|(text, numbers)| {
            let mut indices: Vec<u32> = numbers
                .iter()
                .filter_map(|&n| cited(n))
                .map(|i| i as u32)
                .collect();
            indices.sort_unstable();
            indices.dedup();
            let texts: Vec<&str> = if indices.is_empty() {
                passages.to_vec()
            } else {
                indices
                    .iter()
                    .filter_map(|&i| passages.get(i as usize).copied())
                    .collect()
            };
            let support = word_support(&without_citations(&text), question, &texts);
            // One sentence says little: a single invented name, or half its content words, is too many.
            let supported = support.names == 0 && support.unsupported.len() * 2 <= support.content;
            SentenceCheck {
                text,
                passages: indices,
                supported,
            }
        })
        .collect()
}

/// The numbers of the citations in `text`: `[2]`, `[1, 3]`, `[1][2]`.
pub fn citations(text: &str) -> Vec<u32> {
    let mut numbers = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let inside = &after[..close];
        let parts: Vec<&str> = inside.split(',').map(str::trim).collect();
        if parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            numbers.extend(parts.iter().filter_map(|p| p.parse::<u32>().ok()));
        }
        rest = &after[close + 1..];
    }
    numbers
}

/// `text` without its citations.
fn without_citations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) if !citations(&rest[open..open + close + 2]).is_empty() => {
                out.push_str(&rest[..open]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The citations `sentence` opens with, and the rest of it.
fn leading_citations(sentence: &str) -> (Vec<u32>, &str) {
    let mut numbers = Vec::new();
    let mut rest = sentence.trim_start();
    while rest.starts_with('[') {
        let Some(close) = rest.find(']') else { break };
        let found = citations(&rest[..=close]);
        if found.is_empty() {
            break;
        }
        numbers.extend(found);
        rest = rest[close + 1..].trim_start();
    }
    (numbers, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSAGES: [&str; 2] = [
        "Lucian Gregory, the anarchic poet, declared that the artist is identical with the anarchist.",
        "Syme was a policeman; he had joined a special corps of philosophical detectives.",
    ];

    #[test]
    fn each_sentence_is_checked_against_what_it_cites() {
        let answer = "Gregory is an anarchic poet [1]. He won the Fields Medal [1]. Syme is a detective. [2]";
        let checks = check_sentences(answer, "Who are they?", &PASSAGES, |n| {
            (1..=2).contains(&n).then(|| n as usize - 1)
        });
        let got: Vec<(&str, Vec<u32>, bool)> = checks
            .iter()
            .map(|c| (c.text.as_str(), c.passages.clone(), c.supported))
            .collect();
        assert_eq!(
            got,
            [
                ("Gregory is an anarchic poet [1].", vec![0], true),
                ("He won the Fields Medal [1].", vec![0], false),
                ("Syme is a detective. [2]", vec![1], true),
            ]
        );
    }

    #[test]
    fn a_sentence_citing_the_wrong_passage_or_none_is_checked_as_it_cites() {
        let wrong = check_sentences(
            "Syme is a philosophical detective [1].",
            "Who is Syme?",
            &PASSAGES,
            |n| (1..=2).contains(&n).then(|| n as usize - 1),
        );
        assert!(!wrong[0].supported, "{wrong:?}");
        let none = check_sentences(
            "Syme is a philosophical detective.",
            "Who is Syme?",
            &PASSAGES,
            |_| None,
        );
        assert!(none[0].supported && none[0].passages.is_empty(), "{none:?}");
        let unknown = check_sentences("Syme is a detective [7].", "Who?", &PASSAGES, |_| None);
        assert!(
            unknown[0].supported && unknown[0].passages.is_empty(),
            "a number never given: all passages"
        );
    }

    #[test]
    fn citations_are_read_in_their_usual_forms() {
        assert_eq!(citations("a [1, 3] b [2][4] c [x] [] [5"), [1, 3, 2, 4]);
        assert_eq!(without_citations("poet [1]. [see] it [2,3]"), "poet . [see] it ");
    }
}
