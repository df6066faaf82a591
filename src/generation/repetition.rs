//! Stopping an answer that repeats itself: a small model left to greedy
//! decoding can write one sentence over and over until its token limit. An
//! answer whose last `ngram` tokens have appeared twice before in it (the
//! same run of tokens a third time) is over.

/// Lectern's chat default: a run of 16 tokens (a short sentence, or two
/// turns of a shorter loop) written a third time ends the answer.
pub const CHAT_NGRAM: usize = 16;

/// Whether `answer`'s last `ngram` tokens appear at least twice earlier in
/// it (overlapping appearances count, so a loop shorter than `ngram` is
/// caught too); never for `ngram` 0 or an answer shorter than it.
pub fn repeats_itself(answer: &[u32], ngram: usize) -> bool {
    if ngram == 0 || answer.len() < ngram {
        return false;
    }
    let tail = &answer[answer.len() - ngram..];
    let earlier = answer[..answer.len() - 1]
        .windows(ngram)
        .filter(|window| *window == tail)
        .count();
    earlier >= 2
}

#[cfg(test)]
mod tests {
    use super::repeats_itself;

    #[test]
    fn a_run_written_a_third_time_stops_and_a_second_does_not() {
        let sentence = [10, 11, 12, 13, 14];
        let mut answer = vec![1, 2];
        answer.extend(sentence);
        answer.push(3);
        answer.extend(sentence);
        assert!(!repeats_itself(&answer, 5), "twice is not yet a loop");
        answer.extend(&sentence[..4]);
        assert!(!repeats_itself(&answer, 5));
        answer.push(sentence[4]);
        assert!(repeats_itself(&answer, 5), "the third time is");
        assert!(!repeats_itself(&answer, 6), "no six-token run is repeated");
        assert!(!repeats_itself(&answer, 0), "0 is off");
    }

    #[test]
    fn a_loop_shorter_than_the_run_is_caught() {
        // "a b a b a b …": the four-token run "a b a b" appears at 0, 2 and 4.
        let answer = [7, 8, 7, 8, 7, 8, 7, 8];
        assert!(repeats_itself(&answer, 4));
        assert!(!repeats_itself(&answer[..7], 4));
        assert!(!repeats_itself(&[1, 2, 3], 4));
    }
}
