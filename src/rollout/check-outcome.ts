import { EnvironmentOutputError } from '../errors/env-errors.js';
import { describeValue, isMessageArray } from '../env/tool-output.js';
import type { StepOutcome } from '../env/types.js';

/**
 * Checks what an environment's `step` resolved to before the engine reads it: `{ done: true, … }` or
 * `{ done: false, observation: Message[] }` (each message `{ role, content: string }`).
 * @throws EnvironmentOutputError naming what was returned and what is expected.
 */
export function checkStepOutcome(outcome: unknown, envName: string): StepOutcome {
  const o = outcome as { done?: unknown; observation?: unknown } | null | undefined;
  if (typeof o !== 'object' || o === null || typeof o.done !== 'boolean') {
    throw new EnvironmentOutputError(
      envName,
      `environment '${envName}' step returned ${describeValue(outcome)}; expected { done: true } or { done: false, observation: Message[] }`,
    );
  }
  if (o.done === false && !isMessageArray(o.observation)) {
    throw new EnvironmentOutputError(
      envName,
      `environment '${envName}' step returned an observation that is ${describeValue(o.observation)}; expected an array of messages ({ role: 'tool', content: string }, …)`,
    );
  }
  return outcome as StepOutcome;
}
