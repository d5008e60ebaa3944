import { z } from '../util/zod.js';
import type { ExecResult } from '../types/exec-result.js';

/**
 * zod schema of {@link ExecResult}: validates results that cross a process or network boundary
 * (remote sandboxes, `sandbox-serve`) and is used by the conformance suite on every result.
 */
export const execResultSchema = z.strictObject({
  status: z.enum(['ok', 'error', 'timeout', 'memory', 'output_limit', 'sandbox_error']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable().optional(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  wallMs: z.number().nonnegative(),
  cpuMs: z.number().nonnegative().optional(),
  sessionReset: z.boolean().optional(),
});

// Compile-time check that the schema and the shared type stay in step.
type SchemaOut = z.infer<typeof execResultSchema>;
const _sameShape: (r: ExecResult) => SchemaOut = (r) => r;
void _sameShape;
