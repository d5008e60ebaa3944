import type { Example } from '../../types/example.js';

/** What the agent's code is given for one rollout. */
export interface AgentRunArgs<E extends Example = Example> {
  /** OpenAI-compatible base URL of this rollout's endpoint, e.g. `http://127.0.0.1:41234/v1` (pass as the client's `baseURL`). */
  readonly baseURL: string;
  /** Anthropic base URL of the same endpoint, e.g. `http://127.0.0.1:41234` (pass as `@anthropic-ai/sdk`'s `baseURL`; it adds `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /** This rollout's key (refused once the rollout ended). */
  readonly apiKey: string;
  /** A model name to send (any name is accepted; the policy answers). */
  readonly model: string;
  /** The dataset example this rollout answers. */
  readonly example: E;
  /** Aborted when the rollout is cancelled or runs past its time; pass it to the client's requests. */
  readonly signal: AbortSignal;
  /** Id of the trajectory being recorded, `${exampleId}/${groupIndex}`. */
  readonly trajectoryId: string;
  /** Branch index within the group, 0-based. */
  readonly groupIndex: number;
}
