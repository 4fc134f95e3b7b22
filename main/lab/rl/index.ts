// The pure core of agentic RL: group advantages, batch planning (DUPO, DAPO, GRPO), the clipped token-level
// policy-gradient loss, the asynchronous rollout scheduler, and the step's metrics record.
export * from './advantages';
export * from './batch';
export * from './loss';
export * from './async';
export * from './metrics';
