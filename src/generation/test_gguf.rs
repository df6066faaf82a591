//! GGUF files built in memory for the tokenizers' unit tests: a header,
//! metadata and no tensors.

/// A GGUF (version 3, no tensors) holding `metadata`: `(key, type id, value bytes)`.
pub(super) fn gguf(metadata: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    out.extend((metadata.len() as u64).to_le_bytes());
    for (key, kind, value) in metadata {
        out.extend(text(key));
        out.extend(kind.to_le_bytes());
        out.extend(value);
    }
    out
}

/// A string value.
pub(super) fn text(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u64).to_le_bytes().to_vec();
    out.extend(s.as_bytes());
    out
}

/// An array value of `kind` items, each already encoded.
pub(super) fn array(kind: u32, items: Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = kind.to_le_bytes().to_vec();
    out.extend((items.len() as u64).to_le_bytes());
    out.extend(items.concat());
    out
}

/// A SentencePiece vocabulary (`tokenizer.ggml.model = llama`) of `tokens`
/// `(text, score, type)`, with `<bos>` as BOS when it is among them, and
/// `add_space_prefix`.
pub(super) fn spm(tokens: &[(&str, f32, i32)], add_space_prefix: bool) -> Vec<u8> {
    let texts = tokens.iter().map(|t| text(t.0)).collect();
    let scores = tokens.iter().map(|t| t.1.to_le_bytes().to_vec()).collect();
    let types = tokens.iter().map(|t| t.2.to_le_bytes().to_vec()).collect();
    let mut metadata = vec![
        ("tokenizer.ggml.model", 8, text("llama")),
        ("tokenizer.ggml.tokens", 9, array(8, texts)),
        ("tokenizer.ggml.scores", 9, array(6, scores)),
        ("tokenizer.ggml.token_type", 9, array(5, types)),
        ("tokenizer.ggml.add_space_prefix", 7, vec![add_space_prefix as u8]),
    ];
    if let Some(bos) = tokens.iter().position(|t| t.0 == "<bos>") {
        metadata.push((
            "tokenizer.ggml.bos_token_id",
            4,
            (bos as u32).to_le_bytes().to_vec(),
        ));
    }
    gguf(&metadata)
}
