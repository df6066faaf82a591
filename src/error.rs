//! The one error type every fallible Lectern operation returns.

use serde::Serialize;

/// Convenient alias for results carrying a Lectern [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in Lectern, one variant per kind.
///
/// At the JS boundary each variant becomes a real `Error` whose `name` is
/// [`Error::name`] and which carries the variant's fields as properties.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Error {
    /// A conversation, message or other record does not exist.
    #[error("{what} not found: {id}")]
    NotFound {
        /// What kind of record was looked up ("conversation", ...).
        what: String,
        /// The id that was looked up.
        id: String,
    },
    /// The provider answered 429; `retry_after_ms` is its requested wait, if it gave one.
    #[error("rate limited by the provider{}", retry_after_ms.map(|ms| format!(" (retry after {ms} ms)")).unwrap_or_default())]
    #[serde(rename_all = "camelCase")]
    RateLimited {
        /// How long the provider asked us to wait, in milliseconds.
        retry_after_ms: Option<u64>,
    },
    /// The network failed: the request never got an HTTP answer, or the body broke off.
    #[error("connection failed: {message}")]
    Connection {
        /// What the transport reported.
        message: String,
    },
    /// The provider answered with an HTTP error status other than auth or rate limit.
    #[error("provider returned HTTP {status}: {body}")]
    Api {
        /// The HTTP status.
        status: u16,
        /// An excerpt of the response body.
        body: String,
    },
    /// The provider rejected the credentials (401/403).
    #[error("authentication failed (HTTP {status}): {body}")]
    Auth {
        /// The HTTP status (401 or 403).
        status: u16,
        /// An excerpt of the response body.
        body: String,
    },
    /// The provider's response was not in the format it promised.
    #[error("protocol error: {message}")]
    Protocol {
        /// What was wrong with the response.
        message: String,
    },
    /// A tool failed in a way that could not be reported to the model.
    #[error("tool {tool} failed: {message}")]
    Tool {
        /// The tool's name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// Reading or writing the store failed; nothing of the failed write was kept.
    #[error("storage failed: {message}")]
    Storage {
        /// What the storage backend reported.
        message: String,
        /// Why, as a kind the host can switch on.
        reason: StorageReason,
    },
    /// The configuration or an argument from the host is invalid.
    #[error("invalid configuration: {message}")]
    Config {
        /// What is wrong with it.
        message: String,
    },
    /// The operation was cancelled through an abort signal.
    #[error("aborted")]
    Aborted,
    /// The operation took longer than its configured limit.
    #[error("timed out after {after_ms} ms")]
    #[serde(rename_all = "camelCase")]
    Timeout {
        /// The limit that was exceeded, in milliseconds.
        after_ms: u64,
    },
    /// The agent loop hit its iteration limit before the model answered.
    #[error("the model did not finish within {limit} iterations")]
    MaxIterations {
        /// The configured limit.
        limit: u32,
    },
    /// The next model call would take the turn's or the conversation's usage
    /// past its `budget` / `budgetPeriod`: the turn stopped before it.
    #[error("the {scope}'s budget of {max} {limit} would be exceeded: {spent} spent, the next request needs about {next} more")]
    #[serde(rename_all = "camelCase")]
    BudgetExceeded {
        /// `turn` or `conversation`.
        scope: String,
        /// `tokens` or `costUsd`.
        limit: String,
        /// The budget.
        max: f64,
        /// Spent so far (this turn, or the conversation's total).
        spent: f64,
        /// The next request's estimated input (tokens, or its cost).
        next: f64,
    },
    /// The model asked for more tool calls in one turn than allowed.
    #[error("the model asked for more than {limit} tool calls in one turn")]
    MaxToolCalls {
        /// The configured limit.
        limit: u32,
    },
    /// A book's vectors came from another embedding model than the one searching
    /// it, or an embedder changed its dimension between calls.
    #[error("embedding mismatch: {message}")]
    EmbedderMismatch {
        /// What does not match.
        message: String,
    },
    /// Another turn on the same conversation did not finish within the configured wait.
    #[error("conversation {conversation_id} is busy with another turn (waited {waited_ms} ms)")]
    #[serde(rename_all = "camelCase")]
    ConversationBusy {
        /// The conversation.
        conversation_id: String,
        /// How long this call waited.
        waited_ms: u64,
    },
    /// A new message was sent to a conversation whose turn waits for approval.
    #[error(
        "conversation {conversation_id} has turn {turn_id} waiting for approval; resolve or cancel it first"
    )]
    #[serde(rename_all = "camelCase")]
    ApprovalPending {
        /// The conversation.
        conversation_id: String,
        /// The paused turn.
        turn_id: String,
    },
    /// A paused turn was already resolved, cancelled or is being resolved.
    #[error("turn {turn_id} is not waiting for approval (it is {state})")]
    #[serde(rename_all = "camelCase")]
    AlreadyResolved {
        /// The turn.
        turn_id: String,
        /// Where it stands: `resolving`, `resolved`, `cancelled` or `expired`.
        state: String,
    },
    /// A paused turn's approval ran out; it was closed without running its calls.
    #[error("the approval of turn {turn_id} expired")]
    #[serde(rename_all = "camelCase")]
    ApprovalExpired {
        /// The turn.
        turn_id: String,
        /// When it expired (ms since the epoch).
        expired_at: f64,
    },
    /// A decision named a call that is not waiting for one.
    #[error("call {call_id} of turn {turn_id} is not waiting for a decision")]
    #[serde(rename_all = "camelCase")]
    CallNotPending {
        /// The turn.
        turn_id: String,
        /// The call.
        call_id: String,
    },
    /// Edited arguments do not fit the tool's schema (nothing was run or changed).
    #[error("invalid arguments for {tool}: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// The model's answer did not match `send`'s `responseSchema`, twice (the
    /// first time it was asked to correct it); no answer was stored.
    #[error("the answer does not match the response schema: {validation_error}")]
    #[serde(rename_all = "camelCase")]
    StructuredOutput {
        /// The answer that did not match (the second one).
        text: String,
        /// Why: not JSON, or the first field that breaks the schema.
        validation_error: String,
    },
    /// An `importConversation` input is not a valid export: nothing was stored.
    #[error("cannot import: {path}: {message}")]
    Import {
        /// Where in the input, e.g. `messages[3].tool_call_id` (empty for the input as a whole).
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// Lectern hit a bug (a Rust panic) and stopped: every later call on the
    /// page is refused with this error until the page is reloaded.
    #[error("Lectern stopped after an internal error: {panic}")]
    Internal {
        /// The panic's message and where it happened.
        panic: String,
    },
}

/// Why a storage operation failed: the `reason` of a `StorageError`.
///
/// Serialised in camelCase (`'quota'`, `'aborted'`, …), as JS sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StorageReason {
    /// The origin's storage quota is used up (`QuotaExceededError`).
    Quota,
    /// The transaction was aborted (`AbortError`, or an abort with no stated cause).
    Aborted,
    /// A schema upgrade waited too long for other connections (other tabs) to close.
    Blocked,
    /// The connection is closed: by `close()`, or because another tab opened a
    /// newer version of the database or deleted it.
    Closed,
    /// A write broke a constraint: a record with that key exists (`ConstraintError`).
    Constraint,
    /// The stored database is newer than this code (`VersionError`).
    Version,
    /// A schema upgrade step failed; the database stays at its old version.
    Upgrade,
    /// A record could not be encoded, or a stored one decoded.
    Data,
    /// Anything else.
    Unknown,
}

impl StorageReason {
    /// The reason with this (serialised, camelCase) name; `Unknown` for any other.
    pub fn from_name(name: &str) -> Self {
        match name {
            "quota" => StorageReason::Quota,
            "aborted" => StorageReason::Aborted,
            "blocked" => StorageReason::Blocked,
            "closed" => StorageReason::Closed,
            "constraint" => StorageReason::Constraint,
            "version" => StorageReason::Version,
            "upgrade" => StorageReason::Upgrade,
            "data" => StorageReason::Data,
            _ => StorageReason::Unknown,
        }
    }

    /// The reason a `DOMException` with this `name` stands for.
    pub fn from_dom_exception(name: &str) -> Self {
        match name {
            "QuotaExceededError" => StorageReason::Quota,
            "AbortError" | "TransactionInactiveError" => StorageReason::Aborted,
            "ConstraintError" => StorageReason::Constraint,
            "VersionError" => StorageReason::Version,
            "DataError" | "DataCloneError" => StorageReason::Data,
            _ => StorageReason::Unknown,
        }
    }
}

impl Error {
    /// The JS `Error.name` for this kind, e.g. `NotFoundError`.
    pub fn name(&self) -> &'static str {
        match self {
            Error::NotFound { .. } => "NotFoundError",
            Error::RateLimited { .. } => "RateLimitError",
            Error::Connection { .. } => "ConnectionError",
            Error::Api { .. } => "ApiError",
            Error::Auth { .. } => "AuthError",
            Error::Protocol { .. } => "ProtocolError",
            Error::Tool { .. } => "ToolError",
            Error::Storage { .. } => "StorageError",
            Error::Config { .. } => "ConfigError",
            Error::Aborted => "AbortError",
            Error::Timeout { .. } => "TimeoutError",
            Error::MaxIterations { .. } => "MaxIterationsError",
            Error::MaxToolCalls { .. } => "MaxToolCallsError",
            Error::BudgetExceeded { .. } => "BudgetExceededError",
            Error::ConversationBusy { .. } => "ConversationBusyError",
            Error::EmbedderMismatch { .. } => "EmbedderMismatchError",
            Error::ApprovalPending { .. } => "ApprovalPendingError",
            Error::AlreadyResolved { .. } => "AlreadyResolvedError",
            Error::ApprovalExpired { .. } => "ApprovalExpiredError",
            Error::CallNotPending { .. } => "CallNotPendingError",
            Error::InvalidArguments { .. } => "InvalidArgumentsError",
            Error::StructuredOutput { .. } => "StructuredOutputError",
            Error::Import { .. } => "ImportError",
            Error::Internal { .. } => "InternalError",
        }
    }

    /// A `NotFound` for the given kind of record and id.
    pub fn not_found(what: &str, id: &str) -> Self {
        Error::NotFound {
            what: what.to_owned(),
            id: id.to_owned(),
        }
    }

    /// A `Config` error with the given message.
    pub fn config(message: impl Into<String>) -> Self {
        Error::Config {
            message: message.into(),
        }
    }

    /// A `Storage` error with the given message, for no more specific reason ([`StorageReason::Unknown`]).
    pub fn storage(message: impl Into<String>) -> Self {
        Error::storage_because(StorageReason::Unknown, message)
    }

    /// A `Storage` error for this reason, with the given message.
    pub fn storage_because(reason: StorageReason, message: impl Into<String>) -> Self {
        Error::Storage {
            message: message.into(),
            reason,
        }
    }

    /// The reason of a `Storage` error; `None` for every other kind.
    pub fn storage_reason(&self) -> Option<StorageReason> {
        match self {
            Error::Storage { reason, .. } => Some(*reason),
            _ => None,
        }
    }

    /// An `Import` error at `path` with the given message.
    pub fn import(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Import {
            path: path.into(),
            message: message.into(),
        }
    }

    /// A `Protocol` error with the given message.
    pub fn protocol(message: impl Into<String>) -> Self {
        Error::Protocol {
            message: message.into(),
        }
    }

    /// A `Connection` error with the given message.
    pub fn connection(message: impl Into<String>) -> Self {
        Error::Connection {
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_js_convention() {
        assert_eq!(Error::not_found("conversation", "x").name(), "NotFoundError");
        assert_eq!(Error::Aborted.name(), "AbortError");
        assert_eq!(
            Error::RateLimited {
                retry_after_ms: Some(1000)
            }
            .to_string(),
            "rate limited by the provider (retry after 1000 ms)"
        );
    }

    #[test]
    fn storage_errors_carry_their_reason_in_camel_case() {
        let error = Error::storage_because(StorageReason::Quota, "full");
        assert_eq!(error.storage_reason(), Some(StorageReason::Quota));
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["reason"], "quota");
        assert_eq!(json["message"], "full");
        assert_eq!(Error::storage("x").storage_reason(), Some(StorageReason::Unknown));
        assert_eq!(Error::Aborted.storage_reason(), None);
        for (dom, reason) in [
            ("QuotaExceededError", "quota"),
            ("ConstraintError", "constraint"),
            ("AbortError", "aborted"),
            ("VersionError", "version"),
            ("UnknownError", "unknown"),
        ] {
            let json = serde_json::to_value(StorageReason::from_dom_exception(dom)).unwrap();
            assert_eq!(json, reason, "{dom}");
        }
    }

    #[test]
    fn serialises_fields_in_camel_case() {
        let json = serde_json::to_value(Error::RateLimited {
            retry_after_ms: Some(5),
        })
        .unwrap();
        assert_eq!(json["retryAfterMs"], 5);
        assert_eq!(json["kind"], "rateLimited");
    }

    #[test]
    fn an_internal_error_says_lectern_stopped() {
        let error = Error::Internal {
            panic: "index out of bounds (at src/x.rs:1)".into(),
        };
        assert_eq!(error.name(), "InternalError");
        assert_eq!(
            error.to_string(),
            "Lectern stopped after an internal error: index out of bounds (at src/x.rs:1)"
        );
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(
            (json["kind"].as_str(), json["panic"].as_str()),
            (Some("internal"), Some("index out of bounds (at src/x.rs:1)"))
        );
    }
}
