// The agent core's public surface (issue 4): the simulated web, the tool layer, the ReAct protocol and
// runtime, the expert with reasoning reconstruction, rewards, RFT filters and evaluation. No Electron.
export { SimWeb, pagesFromGraph, relationPhrase, formatSearchObservation, formatVisitObservation, extractEvidence, type Page, type SearchResult, type WebOptions } from './web';
export { Bm25Index } from './bm25';
export { simToolset, httpToolset, extractFromText, type HttpToolsetConfig } from './env';
export {
  ManagedTool,
  ToolError,
  TokenBucket,
  LruCache,
  canonicalJson,
  chatSource,
  chatTool,
  chatFn,
  chatPolicy,
  httpSearchSource,
  httpPageSource,
  type ToolCounters,
  type ToolPolicy,
  type ToolSource,
  type ChatConfig,
  type ChatMessage,
  type ChatRequest,
} from './tools';
export {
  parseTurn,
  renderTrajectory,
  renderPrompt,
  systemPrompt,
  DEFAULT_TOOLS,
  SEARCH_TOOL,
  VISIT_TOOL,
  type AgentStep,
  type ParsedTurn,
  type FormatIssue,
  type Span,
  type SegmentKind,
  type Rendered,
  type ToolSpec,
} from './react';
export { runEpisode, contextText, toolCallsByName, DEFAULT_LIMITS, type Policy, type GenerateOptions, type Toolset, type Limits, type EpisodeInput, type TokenCounter } from './runtime';
export { createExpert, ExpertSolver, type ExpertTask, type ExpertOptions } from './expert';
export { reconstructTrajectory, ruleReconstructor, ruleThought, terseReconstructor, citedReconstructor, terseThought, llmReconstructor, type Reconstructor, type ChatFn } from './thoughts';
export { scoreTrajectory, formatScore, turnFormatScore, exactMatch, tokenF1, combineReward, chatJudge, REWARD_DEFAULTS, type RewardOptions, type Judge } from './reward';
export { filterTrajectories, buildRft, maxNgramCount, generatedText, RFT_DEFAULTS, type RftOptions, type RftReport } from './rft';
export { evaluate, passAtK, majority, sampleFromTrajectory, type EvalReport, type EvalSample } from './eval';
export { resolvePolicy, registerPolicyKind, policyKinds, type PolicyFactory, type PolicyContext, type PolicyResolver } from './policies';
export { rolloutOne, rolloutDataset, type RolloutOptions } from './rollout';
export { readQaDataset, readTrajectories } from './data';
export { demoGraph, demoQAs } from './demo';
