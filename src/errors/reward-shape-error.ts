import { AgentRLError } from './base.js';

/**
 * A reward function returned something that is not a `RewardResult` (`{ reward: number, correct: boolean,
 * validFormat: boolean, … }`), e.g. `1`, `{ score: 1 }` or `{ reward: '1' }`. Thrown at the first such call, before
 * anything is trained on; names the trajectory, what was returned and the expected shape.
 */
export class RewardShapeError extends AgentRLError {
  /** Stable identifier of this error class (`'REWARD_SHAPE'`), kept by minifiers: match on it. */
  static readonly code = 'REWARD_SHAPE' as const;
  /** The class's `code`, on every instance (narrows in a `switch (e.code)`). */
  readonly code = 'REWARD_SHAPE' as const;
  /** Creates the error; each `readonly` parameter becomes the property of the same name. */
  constructor(
    /** Id of the trajectory concerned. */
    readonly trajectoryId: string,
    /** The value the reward returned (resolved, when it returned a promise). */
    readonly returned: unknown,
    problem: string,
  ) {
    super(
      `reward returned ${describe(returned)} for trajectory ${trajectoryId}: ${problem}. ` +
        `Expected { reward: number, correct: boolean, validFormat: boolean } (e.g. return { reward: ok ? 1 : 0, correct: ok, validFormat: true })`,
    );
    this.name = 'RewardShapeError';
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'function') return 'a function';
  try {
    const s = JSON.stringify(v);
    return s.length > 80 ? `${s.slice(0, 77)}…` : s;
  } catch {
    return String(v);
  }
}
