// Prompts the local-model benchmarks share, so that figures said to be "the same prompt" are.

/** SmolLM2's chat prompt of 378 tokens (382 with a `part k` prefix): a passage read, then a question. */
export const LONG_CHAT_PROMPT = `<|im_start|>user\nRead this. ${'The man who was Thursday walked along the river at night, thinking of anarchy and poetry. '.repeat(20)}Who walked along the river?<|im_end|>\n<|im_start|>assistant\n`;
