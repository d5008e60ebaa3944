export { judgeReward, type JudgeReward, type JudgeRewardOptions, type JudgeStats } from './judge-reward.js';
export type { Judge, SamplerJudge, EndpointJudge } from './judge-client.js';
export { formatTrajectory } from './judge-prompt.js';
export { JUDGE_MAX_RESPONSE_BYTES, JUDGE_REQUEST_TIMEOUT_MS } from './judge-endpoint.js';
