//! Lectern's own decoder (`lectern::generation`) against llama.cpp: the greedy
//! continuations of fixed prompts by wllama 3.8.1 (llama.cpp in wasm, recorded by
//! `scripts/llama-reference.mjs` into `tests/fixtures/local/smollm2-greedy.json`)
//! are the decoder's, token for token; and a conversation's next prompt reuses
//! the cached keys and values of the prompt before without changing a token.
//! Needs SmolLM2-135M-Instruct (`LECTERN_SMOLLM2`, from
//! `scripts/fetch-smollm2.sh`); skipped with a message without it.

use lectern::generation::repetition::repeats_itself;
use lectern::generation::{greedy, write, Answer, Decoder, Finish, Gguf, RepeatPenalty, Sampler, Tokenizer};

use crate::local_models::{model_bytes, reference};

/// SmolLM2-135M-Instruct's decoder and tokenizer, or `None` (with a message) without its file.
fn smollm2() -> Option<(Decoder, Tokenizer)> {
    let bytes = model_bytes("LECTERN_SMOLLM2", "fetch-smollm2.sh")?;
    let file = Gguf::parse(&bytes).unwrap();
    Some((Decoder::load(&file).unwrap(), Tokenizer::read(&file).unwrap()))
}

#[test]
fn greedy_continuations_are_llama_cpps() {
    let Some((decoder, tokenizer)) = smollm2() else {
        return;
    };
    let reference = reference("smollm2-greedy.json");
    let max = reference["tokens"].as_u64().unwrap() as usize;
    let stops: Vec<u32> = tokenizer.eos.into_iter().collect();
    for case in reference["cases"].as_array().unwrap() {
        let prompt = tokenizer.encode(case["prompt"].as_str().unwrap());
        let mut cache = decoder.new_cache();
        let out = greedy(&decoder, &mut cache, &prompt, max, &stops).unwrap();
        let ended = out.last().is_some_and(|t| stops.contains(t));
        let answer = &out[..out.len() - ended as usize];
        assert_eq!(tokenizer.decode(answer), case["text"].as_str().unwrap());
        assert_eq!(ended, case["finish"] == "stop", "{case}");
    }
}

/// SmolLM2's greedy answer to this question writes "anti-heroic, " until its
/// token limit (as the site's model looped on a question about Gregory): the
/// repeat stop ends it there, and the chat penalty (1.1 over 64 tokens) keeps
/// it from looping, so it ends with its end-of-turn token.
#[test]
fn a_looping_answer_is_stopped_and_the_chat_penalty_keeps_it_from_looping() {
    let Some((decoder, tokenizer)) = smollm2() else {
        return;
    };
    let prompt = tokenizer.encode(
        "<|im_start|>system\nYou answer questions about the novel The Man Who Was Thursday.<|im_end|>\n\
         <|im_start|>user\nWho is Gregory and what does he believe?<|im_end|>\n<|im_start|>assistant\n",
    );
    let stops: Vec<u32> = tokenizer.eos.into_iter().chain(tokenizer.eot).collect();
    let run = |sampler: Sampler, repeat_stop: usize| {
        let mut answer = Answer::new(sampler, repeat_stop);
        let finish = write(
            &decoder,
            &mut decoder.new_cache(),
            &prompt,
            &mut answer,
            200,
            &stops,
        )
        .unwrap();
        (finish, answer.tokens().to_vec())
    };
    let (finish, looping) = run(Sampler::greedy(), 0);
    assert_eq!(finish, Finish::Length);
    assert!(tokenizer
        .decode(&looping)
        .contains("anti-heroic, anti-heroic, anti-heroic"));

    let (finish, stopped) = run(Sampler::greedy(), 16);
    assert_eq!(finish, Finish::Repetition);
    assert!(stopped.len() < 80, "stopped after {} tokens", stopped.len());
    assert_eq!(
        stopped[..],
        looping[..stopped.len()],
        "until then, the same answer"
    );

    let penalised = Sampler::greedy().with_penalty(RepeatPenalty::CHAT, &stops);
    let (finish, answer) = run(penalised, 0);
    assert_eq!(finish, Finish::Stop, "{}", tokenizer.decode(&answer));
    assert!((16..=answer.len()).all(|n| !repeats_itself(&answer[..n], 16)));
}

#[test]
fn a_follow_up_reuses_the_cached_prefix_and_answers_as_a_fresh_read() {
    let Some((decoder, tokenizer)) = smollm2() else {
        return;
    };
    let first = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n";
    let mut cache = decoder.new_cache();
    let answer = greedy(&decoder, &mut cache, &tokenizer.encode(first), 8, &[]).unwrap();
    let follow_up = format!(
        "{first}{}<|im_end|>\n<|im_start|>user\nAnother one?<|im_end|>\n<|im_start|>assistant\n",
        tokenizer.decode(&answer)
    );
    let prompt = tokenizer.encode(&follow_up);
    let held = cache.len();
    let reused = greedy(&decoder, &mut cache, &prompt, 8, &[]).unwrap();
    assert!(held > 20, "the first turn's positions are held ({held})");
    let fresh = greedy(&decoder, &mut decoder.new_cache(), &prompt, 8, &[]).unwrap();
    assert_eq!(reused, fresh);
    assert_eq!(&cache.tokens()[..prompt.len()], &prompt[..]);
}

/// A prompt's pieces read ahead (no output layer) and its last piece read
/// give the logits of the whole prompt read at once, and cache as much.
#[test]
fn pieces_read_ahead_then_the_last_read_give_the_whole_reads_logits() {
    let Some((decoder, tokenizer)) = smollm2() else {
        return;
    };
    let prompt = tokenizer
        .encode("The man who was Thursday walked through the garden at sunset, and Syme followed him.");
    let whole = decoder.read(&prompt, &mut decoder.new_cache()).unwrap();
    let mut cache = decoder.new_cache();
    let pieces: Vec<&[u32]> = prompt.chunks(7).collect();
    let (last, ahead) = pieces.split_last().unwrap();
    for piece in ahead {
        decoder.read_ahead(piece, &mut cache).unwrap();
    }
    assert_eq!(cache.len(), prompt.len() - last.len());
    let logits = decoder.read(last, &mut cache).unwrap();
    assert_eq!(cache.len(), prompt.len());
    assert_eq!(logits, whole);
}

#[test]
fn ids_outside_the_vocabulary_or_past_the_context_are_config_errors_and_read_nothing() {
    let Some((decoder, _)) = smollm2() else {
        return;
    };
    let mut cache = decoder.new_cache();
    let past_context = vec![1; decoder.config().context + 1];
    for tokens in [&[][..], &[decoder.vocab_size() as u32][..], &past_context[..]] {
        let error = decoder.read(tokens, &mut cache).unwrap_err();
        assert_eq!(error.name(), "ConfigError", "{error}");
        let error = decoder.read_ahead(tokens, &mut cache).unwrap_err();
        assert_eq!(error.name(), "ConfigError", "read ahead: {error}");
    }
    assert_eq!(cache.len(), 0);
    assert_eq!(
        decoder.read(&[1], &mut cache).unwrap().len(),
        decoder.vocab_size()
    );
}

/// The block products' plain loops against their definition (the simd128
/// kernels are held to it in Chromium: `tests/web/local_kernels.rs`).
#[test]
fn block_products_are_their_definition() {
    crate::support::local_kernels::block_products_are_their_definition();
}

/// Q8_1 quantising's plain loops against llama.cpp's reference (the simd128
/// kernel in Chromium: `tests/web/local_kernels.rs`).
#[test]
fn q8_1_quantising_is_llama_cpps_reference() {
    crate::support::local_kernels::q8_1_quantising_is_llama_cpps_reference();
}

/// Attention's plain loops against llama.cpp's definition, one head at a time
/// (the simd128 kernels in Chromium: `tests/web/local_kernels.rs`).
#[test]
fn grouped_attention_is_each_head_by_its_definition() {
    crate::support::grouped_attention::grouped_attention_is_each_head_by_its_definition();
}

/// With a clock, a read is timed stage by stage (every stage charged, the
/// logits unchanged); taking the profile resets it; without a clock nothing is timed.
#[test]
fn a_clocked_read_is_timed_stage_by_stage_and_reads_the_same() {
    use lectern::generation::profile::Stage;
    use std::sync::OnceLock;
    use std::time::Instant;

    fn now() -> f64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
    let Some((mut decoder, tokenizer)) = smollm2() else {
        return;
    };
    let tokens = tokenizer.encode("The man who was Thursday walked");
    let plain = decoder.read(&tokens, &mut decoder.new_cache()).unwrap();
    assert_eq!(decoder.take_profile().total(), 0.0, "no clock, no times");

    decoder.set_clock(Some(now));
    let started = now();
    let timed = decoder.read(&tokens, &mut decoder.new_cache()).unwrap();
    let elapsed = now() - started;
    assert_eq!(timed, plain);
    let profile = decoder.take_profile();
    for stage in Stage::ALL {
        assert!(profile.of(stage) > 0.0, "{stage:?} was charged nothing");
    }
    assert!(
        profile.total() <= elapsed,
        "{} ms of stages in {elapsed} ms",
        profile.total()
    );
    assert!(profile.total() > 0.8 * elapsed, "the stages cover the read");
    assert_eq!(decoder.take_profile().total(), 0.0, "taken, it starts again");
}
