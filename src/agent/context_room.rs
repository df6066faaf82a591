//! What fits a model's context window (`modelProfile.contextLength`): the
//! system message and the tool definitions come first, room is kept for the
//! answer, and the newest history goes in what is left.

use super::context::{history_window, message_tokens, ContextStrategy};
use crate::domain::Message;

/// Tokens kept for the answer when no `maxOutputTokens` is set: a quarter of
/// the window, at most 4,096.
pub fn default_output_reserve(context_length: usize) -> usize {
    (context_length / 4).min(4_096)
}

/// A request that is larger than the window even with only the latest
/// message: it is sent anyway, and the host is warned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    /// Estimated tokens of the request (answer room included).
    pub needed: usize,
    /// `contextLength`.
    pub context_length: usize,
}

/// Cuts `window` (oldest first, already within the context strategy) to
/// what `context_length` leaves after `fixed_tokens` (system message and
/// tools) and `reserve` (the answer). Units stay whole and the latest message
/// is always kept; if even that does not fit, says by how much.
pub fn fit_window(
    mut window: Vec<Message>,
    context_length: usize,
    reserve: usize,
    fixed_tokens: usize,
) -> (Vec<Message>, Option<Overflow>) {
    let limit = context_length.saturating_sub(reserve);
    let strategy = ContextStrategy::TokenBudget { max_tokens: limit };
    let keep = history_window(&window, strategy, fixed_tokens).len();
    window.drain(..window.len() - keep);
    let used = fixed_tokens + window.iter().map(message_tokens).sum::<usize>();
    let overflow = (used > limit).then_some(Overflow {
        needed: used + reserve,
        context_length,
    });
    (window, overflow)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Role;

    /// A message of `words` one-token words.
    fn msg(role: Role, words: usize) -> Message {
        Message::new(String::new(), "c", role, "word ".repeat(words), 0.0)
    }

    #[test]
    fn the_window_shrinks_as_the_fixed_part_grows() {
        // Each message: 4 + 100 tokens.
        let history = vec![
            msg(Role::User, 100),
            msg(Role::Assistant, 100),
            msg(Role::User, 100),
        ];
        let (all, overflow) = fit_window(history.clone(), 1_000, 200, 100);
        assert_eq!((all.len(), overflow), (3, None));
        let (two, _) = fit_window(history.clone(), 1_000, 200, 500);
        assert_eq!(two.len(), 2);
        let (one, _) = fit_window(history.clone(), 1_000, 400, 500);
        assert_eq!(one.len(), 1);
        let (last, overflow) = fit_window(history, 1_000, 400, 550);
        assert_eq!(last.len(), 1, "the latest message is always sent");
        assert_eq!(
            overflow,
            Some(Overflow {
                needed: 550 + 104 + 400,
                context_length: 1_000
            })
        );
    }

    #[test]
    fn the_answer_room_is_a_quarter_of_the_window_up_to_4096() {
        assert_eq!(default_output_reserve(2_048), 512);
        assert_eq!(default_output_reserve(200_000), 4_096);
    }
}
