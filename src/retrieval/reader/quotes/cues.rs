//! What kind of answer a question wants, and whether a sentence reads like
//! one: "why" wants a reason (*because*, *so that*), "who" a sentence that
//! describes the person named, "where" a place, "when" a time.

use super::candidates::Sentence;

/// The kind of answer a question asks for, by its question word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// *who*, *whom*, *whose*: a description of someone.
    Who,
    /// *why*: a reason.
    Why,
    /// *where*: a place.
    Where,
    /// *when*: a time.
    When,
    /// *how*: a manner or means.
    How,
    /// *what* and *which*, or a question about what someone said.
    What,
    /// No question word.
    Other,
}

impl AnswerKind {
    /// The kind of the first question word of `terms` (the question's lower-case terms).
    pub fn of(terms: &[String]) -> AnswerKind {
        for term in terms {
            let kind = match term.as_str() {
                "who" | "whom" | "whose" => AnswerKind::Who,
                "why" => AnswerKind::Why,
                "where" => AnswerKind::Where,
                "when" => AnswerKind::When,
                "how" => AnswerKind::How,
                "what" | "which" => AnswerKind::What,
                _ => continue,
            };
            return kind;
        }
        AnswerKind::Other
    }
}

/// Words that give a reason.
const REASON_WORDS: &[&str] = &[
    "because",
    "since",
    "therefore",
    "reason",
    "cause",
    "order",
    "why",
    "meant",
];

/// Words that name or place a place.
const PLACE_WORDS: &[&str] = &[
    "street",
    "road",
    "square",
    "park",
    "house",
    "room",
    "garden",
    "hall",
    "river",
    "bridge",
    "station",
    "table",
    "balcony",
    "city",
    "town",
    "london",
    "restaurant",
    "hotel",
    "cellar",
    "tunnel",
    "field",
    "wood",
    "sea",
    "shore",
    "inn",
    "church",
    "door",
    "window",
    "embankment",
    "quay",
    "pier",
    "boat",
    "train",
    "cab",
    "roof",
];

/// Words of time.
const TIME_WORDS: &[&str] = &[
    "morning",
    "evening",
    "night",
    "day",
    "hour",
    "clock",
    "dawn",
    "sunset",
    "sunrise",
    "moment",
    "minutes",
    "week",
    "year",
    "afterwards",
    "then",
    "before",
    "after",
    "until",
];

/// Words of speech.
const SPEECH_WORDS: &[&str] = &[
    "said", "cried", "answered", "replied", "asked", "says", "say", "told", "called",
];

/// How well `sentence` reads as an answer of `kind` (0 to 1); `names` are
/// the lower-case names the question asks about.
pub fn cue(kind: AnswerKind, sentence: &Sentence<'_>, names: &[String]) -> f32 {
    let has = |words: &[&str]| sentence.terms.iter().any(|t| words.contains(&t.as_str()));
    match kind {
        AnswerKind::Why => {
            let so_that = has_pair(&sentence.terms, "so", "that") || has_pair(&sentence.terms, "in", "order");
            if has(REASON_WORDS) || so_that {
                1.0
            } else if has(&["for", "that"]) {
                0.25
            } else {
                0.0
            }
        }
        AnswerKind::Who => describes(sentence, names),
        AnswerKind::Where => f32::from(u8::from(has(PLACE_WORDS))),
        AnswerKind::When => f32::from(u8::from(has(TIME_WORDS))),
        AnswerKind::How => f32::from(u8::from(has(&["by", "with", "through", "means"]))) * 0.5,
        AnswerKind::What => {
            let quoted = sentence.text.contains(['"', '“', '”']);
            if quoted || has(SPEECH_WORDS) {
                0.5
            } else {
                0.0
            }
        }
        AnswerKind::Other => 0.0,
    }
}

/// Whether the sentence describes one of `names`: names it and says what
/// it is ("X was a …", "X, the …", "a man called X").
fn describes(sentence: &Sentence<'_>, names: &[String]) -> f32 {
    let terms = &sentence.terms;
    let named = terms.iter().any(|t| names.contains(t));
    if !named && !names.is_empty() {
        return 0.0;
    }
    let copula = ["was", "is", "were", "seemed", "looked"].iter().any(|verb| {
        ["a", "an", "the"]
            .iter()
            .any(|article| has_pair(terms, verb, article))
    });
    let apposition = [", a ", ", an ", ", the ", " called ", " named ", " who "]
        .iter()
        .any(|marker| sentence.text.contains(marker));
    if copula || apposition {
        1.0
    } else {
        0.0
    }
}

/// Whether `terms` holds `first` right before `second`.
fn has_pair(terms: &[String], first: &str, second: &str) -> bool {
    terms.windows(2).any(|w| w[0] == first && w[1] == second)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::tokenize::terms;

    fn sentence(text: &str) -> Sentence<'_> {
        let terms = terms(text);
        Sentence {
            passage: 0,
            end_page: 1,
            text,
            words: text.split_whitespace().count(),
            stems: terms.clone(),
            terms,
        }
    }

    #[test]
    fn question_words_give_the_kind() {
        let kind = |q: &str| AnswerKind::of(&terms(q));
        assert_eq!(kind("Who is Gregory and what does he believe?"), AnswerKind::Who);
        assert_eq!(kind("Why did Syme follow him?"), AnswerKind::Why);
        assert_eq!(kind("And where did they meet?"), AnswerKind::Where);
        assert_eq!(kind("Tell me about Sunday."), AnswerKind::Other);
    }

    #[test]
    fn sentences_read_as_answers_of_their_kind() {
        let names = vec!["gregory".to_owned()];
        let describing = sentence("Lucian Gregory, the anarchic poet, stood under the lamp.");
        let plain = sentence("Gregory went home and slept until morning came.");
        assert_eq!(cue(AnswerKind::Who, &describing, &names), 1.0);
        assert_eq!(cue(AnswerKind::Who, &plain, &names), 0.0);
        assert_eq!(cue(AnswerKind::When, &plain, &names), 1.0);
        let reason = sentence("He went so that nobody should see him.");
        assert_eq!(cue(AnswerKind::Why, &reason, &names), 1.0);
        assert_eq!(
            cue(
                AnswerKind::Where,
                &sentence("They sat on the balcony above."),
                &names
            ),
            1.0
        );
    }
}
