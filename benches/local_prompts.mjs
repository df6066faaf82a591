// Prompts the local-model benchmarks share, so that figures said to be "the same prompt" are.

/** SmolLM2's chat prompt of 378 tokens (382 with a `part k` prefix): a passage read, then a question. */
export const LONG_CHAT_PROMPT = `<|im_start|>user\nRead this. ${'The man who was Thursday walked along the river at night, thinking of anarchy and poetry. '.repeat(20)}Who walked along the river?<|im_end|>\n<|im_start|>assistant\n`;

/** A prose prompt of about 60 tokens, beginning `Read this` (a probe's runs number it, so none reuses another's cache). */
export const SHORT_PROSE_PROMPT = 'Read this: Gabriel Syme was a poet who became a detective. What is the capital of France? Answer in one short sentence please. The man who was Thursday walked along the river at night, thinking of anarchy and poetry.\n\nAnswer:';
