//! Decoding a streamed chat-completions answer (SSE chunks) into parts.

use serde_json::Value;

use super::response::{finish_reason, reasoning_delta, usage_from};
use crate::error::{Error, Result};
use crate::http::ByteStream;
use crate::provider::sse::SseEvent;
use crate::provider::sse_body::{decode_sse_body, EventDecoder};
use crate::provider::{PartStream, StreamPart};

/// Turns `chat.completion.chunk` events into [`StreamPart`]s.
///
/// Tool-call fragments are keyed by their `index`; a call starts the first time
/// its index appears and ends when the choice reports a finish reason (or at
/// `[DONE]`).
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    open_calls: Vec<usize>,
    started_calls: Vec<usize>,
    finished: bool,
    done: bool,
}

impl ChunkDecoder {
    /// A decoder at the start of an answer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks the end of the stream (`[DONE]`), closing any open tool calls.
    pub fn done(&mut self, out: &mut Vec<StreamPart>) {
        self.close_calls(out);
        self.done = true;
    }

    /// Decodes one `chat.completion.chunk` object.
    pub fn decode_chunk(&mut self, chunk: &Value, out: &mut Vec<StreamPart>) -> Result<()> {
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(error));
        }
        if let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            self.decode_choice(choice, out)?;
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            out.push(StreamPart::Usage(usage_from(usage)));
        }
        Ok(())
    }

    fn decode_choice(&mut self, choice: &Value, out: &mut Vec<StreamPart>) -> Result<()> {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        out.extend(reasoning_delta(delta));
        out.extend(StreamPart::text_field(delta, "content"));
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.decode_call(call, position, out)?;
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.close_calls(out);
            self.finished = true;
            out.push(StreamPart::Finish(finish_reason(reason)));
        }
        Ok(())
    }

    fn decode_call(&mut self, call: &Value, position: usize, out: &mut Vec<StreamPart>) -> Result<()> {
        let index = match call.get("index") {
            Some(i) => i
                .as_u64()
                .ok_or_else(|| Error::protocol(format!("tool call index is not a number: {i}")))?
                as usize,
            None => position,
        };
        let function = call.get("function").unwrap_or(&Value::Null);
        if !self.started_calls.contains(&index) {
            self.started_calls.push(index);
            self.open_calls.push(index);
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("call_{index}"));
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            out.push(StreamPart::ToolCallStart { index, id, name });
        }
        if let Some(arguments) = function.get("arguments").and_then(Value::as_str) {
            if !arguments.is_empty() {
                out.push(StreamPart::ToolCallDelta {
                    index,
                    arguments: arguments.to_owned(),
                });
            }
        }
        Ok(())
    }

    fn close_calls(&mut self, out: &mut Vec<StreamPart>) {
        for index in self.open_calls.drain(..) {
            out.push(StreamPart::ToolCallEnd { index });
        }
    }
}

impl EventDecoder for ChunkDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<StreamPart>) -> Result<()> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done(out);
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| Error::protocol(format!("malformed stream chunk ({e}): {}", excerpt(data))))?;
        self.decode_chunk(&chunk, out)
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn is_finished(&self) -> bool {
        self.finished || self.done
    }
}

/// Decodes an OpenAI SSE body into parts.
pub fn decode_openai_body(body: ByteStream) -> PartStream {
    decode_sse_body(body, ChunkDecoder::new())
}

fn stream_error(error: &Value) -> Error {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    Error::protocol(format!("the provider reported an error mid-stream: {message}"))
}

fn excerpt(text: &str) -> String {
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{accumulate, FinishReason};
    use futures::StreamExt;

    fn body_of(chunks: &[&str]) -> ByteStream {
        let owned: Vec<Result<Vec<u8>>> = chunks.iter().map(|c| Ok(c.as_bytes().to_vec())).collect();
        Box::pin(futures::stream::iter(owned))
    }

    fn collect(chunks: &[&str]) -> Vec<Result<StreamPart>> {
        futures::executor::block_on(decode_openai_body(body_of(chunks)).collect())
    }

    #[test]
    fn text_usage_and_done() {
        let parts = collect(&[
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n",
            "data: [DONE]\n\n",
        ]);
        let parts: Vec<StreamPart> = parts.into_iter().map(|p| p.unwrap()).collect();
        assert_eq!(parts[0], StreamPart::TextDelta("Hel".into()));
        assert_eq!(parts[1], StreamPart::TextDelta("lo".into()));
        assert_eq!(parts[2], StreamPart::Finish(FinishReason::Stop));
        match &parts[3] {
            StreamPart::Usage(u) => assert_eq!(
                (u.input_tokens, u.output_tokens, u.cached_input_tokens),
                (9, 2, 4)
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(parts.len(), 4);
    }

    #[test]
    fn parallel_tool_calls_from_fragments() {
        let stream = decode_openai_body(body_of(&[
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"time\",\"arguments\":\"{}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Oslo\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
        ]));
        let response = futures::executor::block_on(accumulate(stream)).unwrap();
        let calls: Vec<(&str, &str, &str)> = response
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                ("call_a", "weather", "{\"city\":\"Oslo\"}"),
                ("call_b", "time", "{}")
            ]
        );
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn malformed_chunk_is_a_protocol_error_after_the_good_parts() {
        let parts =
            collect(&["data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {not json\n\n"]);
        assert_eq!(parts[0], Ok(StreamPart::TextDelta("ok".into())));
        let err = parts[1].clone().unwrap_err();
        assert_eq!(err.name(), "ProtocolError");
        assert!(err.to_string().contains("malformed stream chunk"), "{err}");
    }

    #[test]
    fn a_cut_off_stream_is_a_connection_error() {
        let parts = collect(&["data: {\"choices\":[{\"delta\":{\"content\":\"partial\"}}]}\n\n"]);
        assert_eq!(parts[0], Ok(StreamPart::TextDelta("partial".into())));
        assert_eq!(parts[1].clone().unwrap_err().name(), "ConnectionError");
    }

    #[test]
    fn an_error_object_mid_stream_is_reported() {
        let parts = collect(&["data: {\"error\":{\"message\":\"overloaded\"}}\n\n"]);
        assert!(parts[0].clone().unwrap_err().to_string().contains("overloaded"));
    }
}
