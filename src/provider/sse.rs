//! An incremental Server-Sent Events parser over raw bytes.
//!
//! Follows the HTML living standard's event-stream rules: LF, CRLF and CR line
//! ends (a CRLF may be split across chunks), `:` comments, `data:` lines joined
//! with `\n`, `event:`, `id:` and `retry:` fields, one optional space after the
//! colon, a leading BOM ignored. Bytes are buffered until an event completes,
//! so a UTF-8 character split across chunks decodes intact. Every byte is
//! looked at a bounded number of times: parsing is linear in the input.
//! What is buffered is bounded too: a line, or an event's data, longer than
//! [`MAX_EVENT_BYTES`] is a `Protocol` error, whatever the chunking.

use crate::error::{Error, Result};

/// The longest line, and the most data one event may gather (16 MiB): a
/// server that never ends a line or an event cannot make the parser buffer
/// without bound.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, or `None` for the default `message` type.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` seen on the stream, if any.
    pub id: Option<String>,
}

/// Feeds on byte chunks and yields complete events.
#[derive(Debug)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    retry_ms: Option<u64>,
    after_cr: bool,
    started: bool,
    limit: usize,
    failed: Option<Error>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser at the start of a stream, with the [`MAX_EVENT_BYTES`] cap.
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser whose lines and events may hold at most `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: None,
            last_id: None,
            retry_ms: None,
            after_cr: false,
            started: false,
            limit,
            failed: None,
        }
    }

    /// The last `retry:` value seen, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Parses `chunk`, appending every event it completes to `out`.
    ///
    /// A line or an event past the cap is a `Protocol` error (the events
    /// completed before it are in `out`); the parser then refuses every
    /// later chunk with the same error.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let fed = self.feed_chunk(chunk, out);
        if let Err(error) = &fed {
            self.failed = Some(error.clone());
            self.line = Vec::new();
            self.data = Vec::new();
        }
        fed
    }

    fn feed_chunk(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<()> {
        let mut rest = chunk;
        if !self.started && !rest.is_empty() {
            self.started = true;
            self.line.extend_from_slice(rest);
            if self.line.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.line) {
                // Could still be a BOM split across chunks: wait for more.
                self.started = false;
                return Ok(());
            }
            rest = &[];
            let buffered = std::mem::take(&mut self.line);
            let body = buffered.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buffered);
            self.feed_lines(body, out)?;
        }
        self.feed_lines(rest, out)
    }

    fn too_big(&self, what: &str) -> Error {
        let limit = self.limit;
        let size = if limit % (1024 * 1024) == 0 {
            format!("{} MiB", limit / (1024 * 1024))
        } else {
            format!("{limit} bytes")
        };
        Error::protocol(format!("the server sent {what} longer than {size}"))
    }

    fn feed_lines(&mut self, mut rest: &[u8], out: &mut Vec<SseEvent>) -> Result<()> {
        if self.after_cr && !rest.is_empty() {
            // The previous chunk ended in CR: a LF now completes that CRLF.
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let line_part = &rest[..end];
            let terminator = rest[end];
            rest = &rest[end + 1..];
            if self.line.is_empty() {
                self.process_line(line_part, out)?;
            } else {
                if self.line.len() + line_part.len() > self.limit {
                    return Err(self.too_big("an SSE line"));
                }
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(line_part);
                self.process_line(&line, out)?;
                line.clear();
                self.line = line;
            }
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        if self.line.len() + rest.len() > self.limit {
            return Err(self.too_big("an SSE line"));
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    /// Ends the stream. Per the standard, an event not closed by a blank line is dropped.
    pub fn finish(&mut self) {
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<()> {
        if line.len() > self.limit {
            return Err(self.too_big("an SSE line"));
        }
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.data.len() + usize::from(self.has_data) + value.len() > self.limit {
                    return Err(self.too_big("an SSE event"));
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry_ms = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok());
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if !self.has_data {
            return;
        }
        self.has_data = false;
        let data = match String::from_utf8(std::mem::take(&mut self.data)) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        out.push(SseEvent {
            event: event.filter(|e| !e.is_empty()),
            data,
            id: self.last_id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_chunks(input: &[u8], size: usize) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.chunks(size.max(1)) {
            parser.feed(chunk, &mut out).unwrap();
        }
        parser.finish();
        out
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn parses_openai_style_stream() {
        let input = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        assert_eq!(
            data(&parse_in_chunks(input, 1000)),
            ["{\"a\":1}", "{\"b\":2}", "[DONE]"]
        );
    }

    #[test]
    fn every_chunking_gives_the_same_events() {
        let input = "event: message_start\r\ndata: {\"x\":\"é—😀\"}\r\n\r\n: ping comment\rdata: a\rdata: b\r\rid: 7\ndata:c\n\n"
            .as_bytes();
        let whole = parse_in_chunks(input, input.len());
        assert_eq!(data(&whole), ["{\"x\":\"é—😀\"}", "a\nb", "c"]);
        assert_eq!(whole[0].event.as_deref(), Some("message_start"));
        assert_eq!(whole[2].id.as_deref(), Some("7"));
        for size in 1..input.len() {
            assert_eq!(parse_in_chunks(input, size), whole, "chunk size {size}");
        }
    }

    #[test]
    fn crlf_split_between_chunks_is_one_line_end() {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        parser.feed(b"data: one\r", &mut out).unwrap();
        parser.feed(b"\n\r", &mut out).unwrap();
        parser.feed(b"\ndata: two\n\n", &mut out).unwrap();
        assert_eq!(data(&out), ["one", "two"]);
    }

    #[test]
    fn crlf_split_then_a_lone_lf_is_a_blank_line() {
        // Found by the property test: "\r" | "\n" | "\n" must end the event.
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in [&b"data: x\r"[..], b"\n", b"\n"] {
            parser.feed(chunk, &mut out).unwrap();
        }
        assert_eq!(data(&out), ["x"]);
    }

    #[test]
    fn strips_bom_and_ignores_unknown_fields_and_unterminated_events() {
        let input = b"\xEF\xBB\xBFdata: x\nfoo: bar\nretry: 1500\n\ndata: never closed";
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.chunks(1) {
            parser.feed(chunk, &mut out).unwrap();
        }
        parser.finish();
        assert_eq!(data(&out), ["x"]);
        assert_eq!(parser.retry_ms(), Some(1500));
    }

    #[test]
    fn field_without_colon_and_empty_data() {
        let out = parse_in_chunks(b"data\n\ndata:\ndata:\n\nevent: e\n\n", 3);
        assert_eq!(data(&out), ["", "\n"]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let out = parse_in_chunks(b"data: \xff\xfe ok\n\n", 2);
        assert_eq!(out[0].data, "\u{fffd}\u{fffd} ok");
    }

    /// Feeds `input` in `size`-byte chunks to a parser capped at `limit`.
    fn capped(input: &[u8], size: usize, limit: usize) -> (Vec<SseEvent>, Option<Error>) {
        let mut parser = SseParser::with_limit(limit);
        let mut out = Vec::new();
        for chunk in input.chunks(size.max(1)) {
            if let Err(error) = parser.feed(chunk, &mut out) {
                return (out, Some(error));
            }
        }
        (out, None)
    }

    #[test]
    fn lines_and_events_up_to_the_cap_pass_and_past_it_fail_in_any_chunking() {
        // "data: " + 10 bytes is a 16-byte line; two such lines gather 21 bytes of data.
        let at_cap = b"data: 0123456789\n\n";
        let long_line = b"data: ok\n\ndata: 0123456789X\n\n";
        let long_event = b"data: ok\n\ndata: 0123456789\ndata: 0123456789\n\n";
        for size in 1..=long_event.len() {
            assert_eq!(data(&capped(at_cap, size, 16).0), ["0123456789"]);
            for input in [&long_line[..], &long_event[..]] {
                let (events, error) = capped(input, size, 16);
                assert_eq!(data(&events), ["ok"], "chunk size {size}");
                let error = error.expect("past the cap");
                assert_eq!(error.name(), "ProtocolError");
                assert!(error.to_string().contains("16 bytes"), "{error}");
            }
        }
    }

    #[test]
    fn after_the_cap_every_chunk_is_refused() {
        let mut parser = SseParser::with_limit(8);
        let mut out = Vec::new();
        assert!(parser.feed(b"data: 123456789", &mut out).is_err());
        assert!(parser.feed(b"\n\ndata: x\n\n", &mut out).is_err());
        assert!(out.is_empty());
        assert_eq!(SseParser::new().limit, MAX_EVENT_BYTES);
    }
}
