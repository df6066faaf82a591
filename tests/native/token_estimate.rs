//! The token estimate against real tokenizers' counts. The counts were made
//! once with `gpt-tokenizer` 4.0.0 (OpenAI's o200k and cl100k) and
//! `@anthropic-ai/tokenizer` 0.0.4 (Claude's pre-3 tokenizer, the latest that
//! is public) and are pasted here: no tokenizer runs at test time.

use crate::support::shared_fixtures;

use lectern::domain::estimate_tokens;

/// A text and its real counts: (o200k, cl100k, claude).
struct Counted {
    name: &'static str,
    text: String,
    real: [usize; 3],
}

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/epub/src/{name}.md", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn counted() -> Vec<Counted> {
    let mut texts = vec![
        Counted {
            name: "ja",
            text: fixture("ja"),
            real: [292, 382, 387],
        },
        Counted {
            name: "zh",
            text: fixture("zh"),
            real: [172, 230, 232],
        },
        Counted {
            name: "ar",
            text: fixture("ar"),
            real: [165, 358, 457],
        },
        Counted {
            name: "emoji",
            text: fixture("emoji"),
            real: [179, 204, 210],
        },
        Counted {
            name: "nbsp",
            text: fixture("nbsp"),
            real: [163, 185, 183],
        },
    ];
    match shared_fixtures::thursday() {
        Some(text) => texts.push(Counted {
            name: "thursday",
            text,
            real: [72_743, 73_277, 75_847],
        }),
        None => eprintln!("skipping the Thursday fixture: ../shared is missing"),
    }
    texts
}

/// `estimate / real - 1`, in percent.
fn error_percent(estimate: usize, real: usize) -> f64 {
    100.0 * (estimate as f64 / real as f64 - 1.0)
}

#[test]
fn english_is_within_five_percent_of_every_tokenizer() {
    for text in counted().iter().filter(|t| t.name == "thursday") {
        let estimate = estimate_tokens(&text.text);
        for real in text.real {
            let error = error_percent(estimate, real);
            assert!(
                error.abs() <= 5.0,
                "{}: {estimate} vs {real} ({error:+.1} %)",
                text.name
            );
        }
        let old = error_percent(text.text.len().div_ceil(4), text.real[1]);
        assert!(old > 8.0, "four bytes a token overestimated English: {old:+.1} %");
    }
}

#[test]
fn other_scripts_are_within_a_quarter_of_cl100k_and_claude() {
    for text in counted() {
        let estimate = estimate_tokens(&text.text);
        let errors: Vec<String> = text
            .real
            .iter()
            .map(|&real| format!("{:+.0} %", error_percent(estimate, real)))
            .collect();
        eprintln!(
            "{:>8}: estimate {estimate}, o200k/cl100k/claude {:?}: {}",
            text.name,
            text.real,
            errors.join(" / ")
        );
        for real in &text.real[1..] {
            let error = error_percent(estimate, *real);
            assert!(
                error.abs() <= 25.0,
                "{}: {estimate} vs {real} ({error:+.1} %)",
                text.name
            );
        }
    }
}

#[test]
fn chinese_and_japanese_are_no_longer_undercounted_by_a_third() {
    for text in counted().iter().filter(|t| t.name == "ja" || t.name == "zh") {
        let cl100k = text.real[1];
        let old = error_percent(text.text.len().div_ceil(4), cl100k);
        let new = error_percent(estimate_tokens(&text.text), cl100k);
        assert!(old < -30.0, "{}: four bytes a token was {old:+.1} %", text.name);
        assert!(new > -5.0, "{}: the estimate is {new:+.1} %", text.name);
    }
}
