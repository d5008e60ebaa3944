/** DAPO's overlong handling (see {@link overlongPenalty}). */
export type OverlongConfig =
  | { readonly bufferTokens: number; readonly penalty: number; readonly filter?: false }
  | { readonly filter: true };

/**
 * DAPO's soft overlong punishment (Yu et al. 2025, eq. 13), added to a sample's reward: with `L` its length,
 * `L_max` the budget and `B = bufferTokens`, `0` when `L ≤ L_max − B`, `−penalty·(L − (L_max − B))/B` inside the
 * buffer, `−penalty` past the budget. DAPO uses `penalty` 1 with `B` = 4096 of 20480 tokens.
 */
export function overlongPenalty(length: number, maxTokens: number, bufferTokens: number, penalty: number): number {
  const start = maxTokens - bufferTokens;
  if (length <= start) return 0;
  if (length > maxTokens) return -penalty;
  return (-penalty * (length - start)) / bufferTokens;
}
