// OpenAI `/v1/embeddings` answers: deterministic word-hash vectors (64-d, or
// `dimensions` if asked), so texts sharing words are similar.

function hash(word) {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  return h;
}

function embed(text, dims) {
  const v = new Array(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = hash(word);
    v[h % dims] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export function embeddingsAnswer(body) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const dims = body.dimensions ?? 64;
  return {
    object: 'list',
    data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(String(text), dims) })),
    model: body.model,
    usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
  };
}
