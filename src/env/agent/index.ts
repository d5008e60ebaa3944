export { agentEnvironment, type AgentEnvironment, type AgentEnvironmentOptions, type AgentRunArgs } from './agent-environment.js';
