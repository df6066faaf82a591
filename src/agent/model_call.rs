//! One streamed model call, its pieces forwarded as events.

use std::collections::HashMap;

use futures::StreamExt;

use super::turn::TurnScope;
use super::{Agent, TurnState};
use crate::error::Result;
use crate::events::EventKind;
use crate::provider::{Accumulator, ModelRequest, ModelResponse, StreamPart};

impl Agent {
    /// Streams one model call, forwarding text and tool-call pieces as events.
    /// On failure, the text streamed so far is kept in `state`.
    pub(super) async fn call_model(
        &self,
        scope: &TurnScope<'_>,
        request: &ModelRequest,
        state: &mut TurnState,
    ) -> Result<ModelResponse> {
        state.partial_text = None;
        let mut parts = self.model.stream(request, scope.cancel).await?;
        let mut answer = Accumulator::new();
        let mut calls: HashMap<usize, (String, String)> = HashMap::new();
        while let Some(part) = parts.next().await {
            let part = match part {
                Ok(part) => part,
                Err(error) => {
                    state.partial_text = Some(answer.text().to_owned()).filter(|t| !t.is_empty());
                    return Err(error);
                }
            };
            match &part {
                StreamPart::TextDelta(text) => scope.emit(|| EventKind::TextDelta { text: text.clone() }),
                StreamPart::ReasoningDelta(text) if self.config.show_thinking => {
                    scope.emit(|| EventKind::ReasoningDelta { text: text.clone() })
                }
                StreamPart::ToolCallStart { index, id, name } => {
                    calls.insert(*index, (id.clone(), name.clone()));
                }
                StreamPart::ToolCallDelta { index, arguments } if scope.events.is_listening() => {
                    let known = calls.get(index);
                    scope.emit(|| EventKind::ToolCallDelta {
                        index: *index,
                        call_id: known.map(|(id, _)| id.clone()),
                        tool_name: known.map(|(_, name)| name.clone()),
                        arguments_delta: if self.config.redact_arguments.is_empty() {
                            arguments.clone()
                        } else {
                            // Fragments cannot be redacted field by field: hide them.
                            String::new()
                        },
                    });
                }
                _ => {}
            }
            answer.push(&part);
        }
        Ok(answer.finish())
    }
}
