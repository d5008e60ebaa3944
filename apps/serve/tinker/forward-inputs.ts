import type { z } from 'zod';
import { lossConfigFromWire } from 'agentrl/internal';
import { BackendInputError } from 'agentrl/internal';
import { perTokenLoss } from 'agentrl/internal';
import type { Datum } from 'agentrl/internal';
import type { LossConfig } from 'agentrl/internal';
import { ServeRequestError } from './errors.js';
import type { FutureBody } from './future-store.js';
import type { ServeLimits } from './serve-limits.js';
import * as w from './request-schemas.js';

/**
 * Refuses a `forward` / `forward_backward` input over the datum or token limits, or with a sequence longer than the
 * context (`contextTokens`), before anything is converted. @throws ServeRequestError 400 naming the limit.
 */
export function checkForwardBatch(
  input: z.infer<typeof w.forwardInputSchema>,
  field: string,
  limits: Pick<ServeLimits, 'maxDatumsPerRequest' | 'maxTokensPerRequest'>,
  contextTokens: number,
): void {
  if (input.data.length > limits.maxDatumsPerRequest) {
    throw new ServeRequestError(400, `${field}.data: ${input.data.length} datums exceed maxDatumsPerRequest ${limits.maxDatumsPerRequest}; split the batch`);
  }
  let tokens = 0;
  input.data.forEach((d, i) => {
    let T = 0;
    for (const c of d.model_input.chunks) T += c.tokens?.length ?? 0;
    if (T > contextTokens) throw new ServeRequestError(400, `${field}.data[${i}].model_input: ${T} tokens exceed the context of ${contextTokens}`);
    tokens += T;
  });
  if (tokens > limits.maxTokensPerRequest)
    throw new ServeRequestError(400, `${field}: ${tokens} tokens exceed maxTokensPerRequest ${limits.maxTokensPerRequest}; split the batch`);
}

/** The datums and loss of a wire `forward_input` / `forward_backward_input`. */
export function convertForwardInput(input: z.infer<typeof w.forwardInputSchema>): { datums: Datum[]; loss: LossConfig } {
  const loss = lossConfigFromWire(input.loss_fn, input.loss_fn_config);
  return { datums: input.data.map((d, i) => w.toDatum(d, i, input.loss_fn)), loss };
}

/**
 * `forward` computes logprobs of next tokens: every datum non-empty with `target_tokens[t] = model_input[t+1]`.
 * @throws BackendInputError naming the datum and position.
 */
export function checkForwardTargets(datums: readonly Datum[]): void {
  if (datums.length === 0) throw new BackendInputError('data', 'empty batch');
  for (const [i, d] of datums.entries()) {
    const T = d.modelInput.length;
    if (T === 0) throw new BackendInputError(`data[${i}].model_input`, 'empty sequence');
    if (d.targetTokens.length !== T)
      throw new BackendInputError(`data[${i}].loss_fn_inputs.target_tokens`, `length ${d.targetTokens.length} != model_input length ${T}`);
    for (let t = 0; t + 1 < T; t++) {
      if (d.targetTokens[t] !== d.modelInput[t + 1]) {
        throw new BackendInputError(`data[${i}].loss_fn_inputs.target_tokens[${t}]`, 'forward needs next-token targets (target_tokens[t] = model_input[t+1])');
      }
    }
  }
}

/** The `forward_backward` future body: per-datum learner logprobs and elementwise loss, and `loss:sum` over them. */
export function forwardOutput(
  datums: readonly Datum[],
  loss: LossConfig,
  logprobs: readonly (readonly number[])[],
  metrics: Record<string, number>,
): FutureBody {
  let total = 0;
  const outputs = datums.map((d, i) => {
    const lp = logprobs[i]!;
    const el = perTokenLoss(loss, { targetLogprobs: lp, samplingLogprobs: d.logprobs, advantages: d.advantages, weights: d.weights ?? d.mask });
    total += el.reduce((a, b) => a + b, 0);
    return { logprobs: w.floatTensor(lp), elementwise_loss: w.floatTensor(el) };
  });
  return { type: 'forward_backward', loss_fn_output_type: 'ArrayRecord', loss_fn_outputs: outputs, metrics: { 'loss:sum': total, ...metrics } };
}
