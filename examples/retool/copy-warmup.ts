/**
 * Synthetic warm-up for the from-scratch embedded model: copy a random string of digits and words seen
 * earlier in the sequence. It grows the induction ("copy what came after the same context") heads that
 * ReTool's tool calls need (the numbers of the question reappear in the code, the interpreter's output in the
 * answer) — a few minutes of this stands in for the pretraining a real base model brings. Loss only on the copy.
 */
import { supervisedDatum, type Datum, type Renderer } from 'agentrl';

const WORDS = ['rows', 'trees', 'boxes', 'grams', 'books', 'what', 'is', 'times', 'of', 'each', 'holds', 'farm', 'truck'];

/** One copy datum: `noise [source] noise` then `source` again, trained on the copy only (brackets mark the source). */
export function copyDatum(renderer: Renderer, r: () => number): Datum {
  const pick = () => (r() < 0.55 ? String(Math.floor(r() * 10 ** (1 + Math.floor(r() * 4)))) : WORDS[Math.floor(r() * WORDS.length)]!);
  const source = Array.from({ length: 2 + Math.floor(r() * 4) }, pick).join(r() < 0.5 ? ' ' : '*');
  const noise = () => Array.from({ length: Math.floor(r() * 8) }, pick).join(' ');
  const context = renderer.encode(`${noise()} [${source}] ${noise()}\n`);
  const copy = renderer.encode(`${source}\n`);
  return supervisedDatum({ tokens: [...context, ...copy], mask: [...context.map(() => 0), ...copy.map(() => 1)] });
}
