// The model core: tokenizer, policy model, masking, optimiser, train step, checkpoints.
export * from './tokenizer';
export * from './gpt';
export * from './logprobs';
export { matmul } from './matmul';
export * from './generate';
export * from './mask';
export * from './optim';
export * from './train';
export * from './checkpoint';
