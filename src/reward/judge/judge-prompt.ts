import { z } from '../../util/zod.js';
import { jsonObjectEnd } from '../../chat/json-object-end.js';
import type { Message } from '../../types/message.js';
import type { Trajectory } from '../../types/trajectory.js';

/** The default view of a trajectory for the judge: each assistant turn and what its tools answered. */
export function formatTrajectory(t: Trajectory, maxChars: number): string {
  const parts: string[] = [];
  for (const turn of t.turns) {
    parts.push(`[assistant]\n${turn.text}`);
    for (const m of turn.observation ?? []) parts.push(`[${m.role}${m.role === 'tool' && m.name ? `: ${m.name}` : ''}]\n${m.content}`);
  }
  if (t.finalText && t.finalText !== t.turns[t.turns.length - 1]?.text) parts.push(`[final answer]\n${t.finalText}`);
  const text = parts.join('\n\n');
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/** What a single judgement must parse to. */
export const singleVerdictSchema = z.object({ explanation: z.string().optional(), score: z.number().min(0).max(1) });

/** What a group judgement must parse to: one score per trajectory id. */
export const groupVerdictSchema = z.object({
  scores: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String), explanation: z.string().optional(), score: z.number().min(0).max(1) })),
});

/**
 * The first JSON object in a judge's reply (``` fences and text around it allowed), parsed with `schema`.
 * @returns the value, or the problem in words (fed back to the judge on retry).
 */
export function parseVerdict<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  const start = text.indexOf('{');
  const end = start < 0 ? -1 : jsonObjectEnd(text, start);
  if (end < 0) return { ok: false, problem: 'the reply holds no complete JSON object' };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end));
  } catch (e) {
    return { ok: false, problem: `the JSON does not parse (${e instanceof Error ? e.message : String(e)})` };
  }
  const r = schema.safeParse(json);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, problem: r.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ') };
}

const SINGLE_FORMAT = 'Reply with only a JSON object: {"explanation": "<one or two sentences>", "score": <a number from 0 to 1>}.';
const groupFormat = (ids: readonly string[]) =>
  `Reply with only a JSON object: {"scores": [{"id": "<id>", "explanation": "<one sentence>", "score": <0 to 1>}, …]} with exactly one entry for each id (${ids.join(', ')}).`;

/** Messages asking the judge to score one trajectory against the rubric. */
export function singleMessages(rubric: string, task: string, response: string): Message[] {
  return [
    { role: 'system', content: `You grade an AI agent's work on a task. Rubric:\n${rubric}\n\n${SINGLE_FORMAT}` },
    { role: 'user', content: `Task:\n${task}\n\nThe agent's work:\n${response}` },
  ];
}

/**
 * Messages asking the judge to score a group's trajectories relative to each other (RULER-style: the same task, the
 * best attempts high, the worst low, scores in [0, 1]).
 */
export function groupMessages(rubric: string, task: string, responses: readonly { id: string; text: string }[]): Message[] {
  const body = responses.map((r) => `<trajectory id="${r.id}">\n${r.text}\n</trajectory>`).join('\n\n');
  return [
    {
      role: 'system',
      content: `You compare several attempts by an AI agent at the same task and score each from 0 (worst) to 1 (best), relative to each other. Rubric:\n${rubric}\n\n${groupFormat(responses.map((r) => r.id))}`,
    },
    { role: 'user', content: `Task:\n${task}\n\n${body}` },
  ];
}

/** The follow-up turn of a retry: the reply that failed and what was wrong with it. */
export function retryMessages(reply: string, problem: string): Message[] {
  return [
    { role: 'assistant', content: reply },
    { role: 'user', content: `That reply could not be used: ${problem}. Answer again with only the JSON object.` },
  ];
}
