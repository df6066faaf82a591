//! Lectern's decoder natively, one thread: SmolLM2's two bench prompts
//! (`benches/local_decoder.mjs`'s 62-token chat prompt and 378-token long
//! one) read in 32-token pieces as the browser's Worker reads them, then 32
//! tokens generated; tokens/s, best of `LECTERN_BENCH_RUNS` (default 3).
//! The long prompt's read is also timed stage by stage (the decoder's own
//! clock) and printed as FIGURE lines. `cargo bench --bench local_prompt`;
//! under `perf record`, where the time goes per function. Needs `LECTERN_SMOLLM2` (`scripts/fetch-smollm2.sh`);
//! says so and stops without it.

use std::sync::OnceLock;
use std::time::Instant;

use lectern::generation::profile::StageTimes;
use lectern::generation::{Decoder, Gguf, Tokenizer};

/// Prompt tokens a `read` takes at most (`js/local-worker.js`'s `PIECE`).
const PIECE: usize = 32;
const GENERATED: usize = 32;

fn main() {
    let Some(path) = std::env::var_os("LECTERN_SMOLLM2") else {
        println!("SKIPPED: needs LECTERN_SMOLLM2 (scripts/fetch-smollm2.sh)");
        return;
    };
    let runs: usize = std::env::var("LECTERN_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let bytes = std::fs::read(path).expect("the GGUF file");
    let file = Gguf::parse(&bytes).expect("a GGUF file");
    let (mut decoder, tokenizer) = (
        Decoder::load(&file).expect("SmolLM2"),
        Tokenizer::read(&file).expect("its vocabulary"),
    );
    decoder.set_clock(Some(now));
    // LECTERN_BENCH_THREADS=2: one helper thread shares the products and attention, as the
    // browser's helper Worker does.
    let threads: usize = std::env::var("LECTERN_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let pool = decoder.pool();
    for slot in 0..threads.saturating_sub(1) {
        let pool = pool.clone();
        std::thread::spawn(move || pool.serve(slot));
    }
    while pool.threads() < threads {
        std::thread::yield_now();
    }
    let short = "What is the capital of France? Answer in one short sentence please. Then explain why it is a nice city to visit in spring, in a few words.";
    let chat = format!("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\n{short}<|im_end|>\n<|im_start|>assistant\n");
    let long = format!(
        "<|im_start|>user\nRead this. {}Who walked along the river?<|im_end|>\n<|im_start|>assistant\n",
        "The man who was Thursday walked along the river at night, thinking of anarchy and poetry. "
            .repeat(20)
    );
    println!(
        "Lectern's decoder, native, {threads} thread(s) (SmolLM2-135M Q4_1, {PIECE}-token pieces, best of {runs})"
    );
    for (name, text) in [("chat prompt", chat), ("long prompt", long)] {
        let prompt = tokenizer.encode_prompt(&text);
        let (mut read, mut generate) = (f64::MAX, f64::MAX);
        let mut stages = StageTimes::default();
        for _ in 0..runs {
            let mut cache = decoder.new_cache();
            let started = Instant::now();
            let mut logits = Vec::new();
            decoder.take_profile();
            for piece in prompt.chunks(PIECE) {
                logits = decoder.read(piece, &mut cache).expect("the prompt fits");
            }
            let seconds = started.elapsed().as_secs_f64();
            if seconds < read {
                (read, stages) = (seconds, decoder.take_profile());
            }
            let started = Instant::now();
            for _ in 0..GENERATED {
                let token = lectern::generation::ops::argmax(&logits) as u32;
                logits = decoder.read(&[token], &mut cache).expect("the answer fits");
            }
            generate = generate.min(started.elapsed().as_secs_f64());
        }
        let tps = |n: usize, s: f64| n as f64 / s;
        println!(
            "{name}: {} tokens read at {:.1} tokens/s; {GENERATED} generated at {:.1} tokens/s",
            prompt.len(),
            tps(prompt.len(), read),
            tps(GENERATED, generate)
        );
        if name == "long prompt" {
            print_stages(&stages);
        }
        if threads > 1 {
            let share = pool.helper_parts() as f64 / pool.shared_parts().max(1) as f64;
            println!("  the helper threads ran {share:.2} of the shared parts so far");
        }
    }
}

/// Where the long prompt's best read went, stage by stage: a line, then FIGURE lines.
fn print_stages(stages: &StageTimes) {
    let total = stages.total();
    let shares: Vec<String> = stages
        .each()
        .map(|(stage, ms)| format!("{} {ms:.1} ms ({:.0} %)", stage.name(), 100.0 * ms / total))
        .collect();
    println!("  by stage: {}", shares.join(", "));
    for (stage, ms) in stages.each() {
        println!(
            "FIGURE local_decoder_long_stage_{}_ms native {ms:.1}",
            stage.name()
        );
    }
}

/// Milliseconds since the first call: the decoder's clock.
fn now() -> f64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}
