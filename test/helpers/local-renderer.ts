import { fileURLToPath } from 'node:url';
import { loadRenderer, type Renderer } from 'agentrl';

/** The embedded model's renderer (byte-level BPE tokenizer + ChatML template shipped in assets/local-model). */
export const LOCAL_MODEL_DIR = fileURLToPath(new URL('../../assets/local-model', import.meta.url));

let cached: Promise<Renderer> | undefined;
export function localRenderer(): Promise<Renderer> {
  cached ??= loadRenderer({ dir: LOCAL_MODEL_DIR });
  return cached;
}

/** Text of a native tool call for `code`, as the model would write it. */
export const toolCall = (code: string) => `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}\n</tool_call>`;
