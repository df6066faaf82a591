//! Structured output (`send`'s `responseSchema`): the final answer is parsed
//! as JSON (a ``` or ```json fence around it tolerated) and checked against
//! the schema. An answer that does not match gets one corrective call — the
//! same request without tools, plus that answer and a note naming the
//! problem, kept in memory only — and a second miss fails the turn with
//! `StructuredOutput`. The validator does not enforce `pattern` or `format`.

use serde_json::Value;

use super::model_call::CallContext;
use super::Turn;
use crate::domain::{EgressPurpose, Message, ResponseFormat, Role};
use crate::error::{Error, Result};
use crate::provider::{ModelRequest, ModelResponse};
use crate::runtime::ids::new_id;
use crate::tool::schema::validate;

/// The answer inside a ``` fence (with or without an info string such as
/// `json`) that wraps all of it, else the answer; trimmed either way.
pub fn unfence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(inner) = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
    else {
        return trimmed;
    };
    match inner.split_once('\n') {
        Some((info, body)) if !info.contains(['{', '[']) => body.trim(),
        _ => inner.trim(),
    }
}

/// The answer's JSON text (unfenced) and value if it matches `format`'s
/// schema; else what is wrong, for the model and the host.
pub fn check_answer(text: &str, format: &ResponseFormat) -> std::result::Result<(String, Value), String> {
    let json = unfence(text);
    let value: Value = serde_json::from_str(json).map_err(|e| format!("the answer is not JSON ({e})"))?;
    validate(&format.schema, &value).map_err(|problem| {
        // The validator calls the top-level value "arguments" (it checks tool calls).
        match problem.strip_prefix("arguments") {
            Some(rest) => format!("the answer{rest}"),
            None => problem,
        }
    })?;
    Ok((json.to_owned(), value))
}

/// The note that asks the model to correct an answer.
pub fn correction_note(problem: &str) -> String {
    format!(
        "Your answer did not match the required JSON schema: {problem}. \
         Answer again with only JSON that matches it."
    )
}

impl Turn<'_> {
    /// The final answer and, with a response schema, its data: checked, and
    /// corrected once if it must be (`StructuredOutput` if that fails too).
    pub(super) async fn structured_answer(
        &mut self,
        request: &ModelRequest,
        response: ModelResponse,
        call: CallContext<'_>,
    ) -> Result<(ModelResponse, Option<Value>)> {
        let Some(format) = &request.response_format else {
            return Ok((response, None));
        };
        let problem = match check_answer(&response.text, format) {
            Ok((text, data)) => return Ok((ModelResponse { text, ..response }, Some(data))),
            Err(problem) => problem,
        };
        let corrective = self.corrective_request(request, &response.text, &problem);
        let correction = CallContext {
            purpose: EgressPurpose::Correction,
            ..call
        };
        let second = self.counted_call(&corrective, correction).await?;
        match check_answer(&second.text, format) {
            Ok((text, data)) => Ok((ModelResponse { text, ..second }, Some(data))),
            Err(validation_error) => Err(Error::StructuredOutput {
                text: second.text,
                validation_error,
            }),
        }
    }

    /// `request` without tools (the model must answer now), with the failed
    /// answer and the note after it.
    fn corrective_request(&self, request: &ModelRequest, answer: &str, problem: &str) -> ModelRequest {
        let now = self.agent.clock.now_ms();
        let conversation_id = &self.scope.conversation_id;
        let message = |role, content: String| Message::new(new_id(now), conversation_id, role, content, now);
        let mut corrective = request.clone();
        corrective.tools.clear();
        corrective
            .messages
            .push(message(Role::Assistant, answer.to_owned()));
        corrective
            .messages
            .push(message(Role::User, correction_note(problem)));
        corrective
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn format() -> ResponseFormat {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
            "required": ["city"]
        });
        ResponseFormat::new(None, schema, false).unwrap()
    }

    #[test]
    fn fences_are_taken_off_whole_answers_only() {
        assert_eq!(unfence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfence("  ```\n{\"a\": 1}```  "), "{\"a\": 1}");
        assert_eq!(unfence("```{\"a\": 1}```"), "{\"a\": 1}");
        assert_eq!(unfence("```json {\"a\": \"é\"}\n```"), "json {\"a\": \"é\"}");
        assert_eq!(unfence("{\"a\": \"```\"}"), "{\"a\": \"```\"}");
        assert_eq!(unfence("Here:\n```json\n{}\n```"), "Here:\n```json\n{}\n```");
    }

    #[test]
    fn answers_are_parsed_and_checked() {
        let (text, data) = check_answer("```json\n{\"city\": \"Tromsø\"}\n```", &format()).unwrap();
        assert_eq!(
            (text.as_str(), data),
            ("{\"city\": \"Tromsø\"}", json!({"city": "Tromsø"}))
        );
        assert_eq!(
            check_answer("{\"n\": 1}", &format()),
            Err("city: is required".into())
        );
        assert_eq!(
            check_answer("[1]", &format()),
            Err("the answer: must be an object, got [1]".into())
        );
        let not_json = check_answer("Oslo", &format()).unwrap_err();
        assert!(not_json.starts_with("the answer is not JSON ("), "{not_json}");
    }
}
