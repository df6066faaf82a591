//! Short messages fit for an end user, for hosts that show failures in a chat.

use crate::error::{Error, StorageReason};

/// A sentence an end user can read for `error` (no codes, no internals).
pub fn friendly_message(error: &Error) -> &'static str {
    match error {
        Error::RateLimited { .. } => {
            "The assistant is receiving too many requests right now. Please try again in a moment."
        }
        Error::Connection { .. } => {
            "The assistant could not be reached. Please check your connection and try again."
        }
        Error::Auth { .. } => "The assistant is not set up correctly (its access key was refused).",
        Error::Api { status, .. } if *status >= 500 => {
            "The assistant's service is having trouble. Please try again shortly."
        }
        Error::Api { .. } | Error::Protocol { .. } => {
            "The assistant could not answer this message. Please try rephrasing it."
        }
        Error::Timeout { .. } => "The assistant took too long to answer. Please try again.",
        Error::Aborted => "The answer was stopped.",
        Error::MaxIterations { .. } | Error::MaxToolCalls { .. } => {
            "The assistant could not finish this request. Please try a simpler question."
        }
        Error::BudgetExceeded { .. } => "This conversation has reached its spending limit.",
        Error::ConversationBusy { .. } => "The assistant is still answering your previous message.",
        Error::NotFound { .. } => "This conversation no longer exists.",
        Error::ApprovalPending { .. } => "Please approve or reject the assistant's pending action first.",
        Error::AlreadyResolved { .. } | Error::CallNotPending { .. } => "This action was already decided.",
        Error::ApprovalExpired { .. } => "This action waited too long for approval and was not run.",
        Error::InvalidArguments { .. } => "The changed action is not valid. Please check its fields.",
        Error::StructuredOutput { .. } => {
            "The assistant could not answer in the expected format. Please try again."
        }
        Error::Import { .. } => "This conversation could not be imported: the file is not a valid export.",
        Error::Storage {
            reason: StorageReason::Quota,
            ..
        } => "This browser has no storage space left for this page. Please free some space and try again.",
        Error::Storage {
            reason: StorageReason::Closed | StorageReason::Blocked | StorageReason::Version,
            ..
        } => "This page was updated in another tab. Please reload it.",
        Error::Tool { .. }
        | Error::Storage { .. }
        | Error::Config { .. }
        | Error::EmbedderMismatch { .. }
        | Error::Internal { .. } => "Something went wrong on this page. Please reload it and try again.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_plain_sentence() {
        let errors = [
            Error::RateLimited { retry_after_ms: None },
            Error::connection("x"),
            Error::Auth {
                status: 401,
                body: String::new(),
            },
            Error::Api {
                status: 503,
                body: String::new(),
            },
            Error::Api {
                status: 400,
                body: String::new(),
            },
            Error::Timeout { after_ms: 1 },
            Error::Aborted,
            Error::storage_because(StorageReason::Quota, "full"),
            Error::storage_because(StorageReason::Closed, "closed"),
        ];
        for error in errors {
            let text = friendly_message(&error);
            assert!(text.ends_with('.') && !text.contains("HTTP"), "{text}");
        }
    }
}
