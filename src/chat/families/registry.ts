import { ConfigError } from '../../errors/config-error.js';
import type { FamilyDetectInput, FamilyId, ModelFamily } from './types.js';
import { FAMILY_IDS } from './types.js';
import { qwen3Family } from './qwen3.js';
import { qwen3CoderFamily } from './qwen3-coder.js';
import { llama3Family } from './llama3.js';
import { deepseekV3Family } from './deepseek-v3.js';
import { gptOssFamily } from './gpt-oss.js';
import { kimiK2Family } from './kimi-k2.js';
import { mistralFamily } from './mistral.js';

const FAMILIES: Readonly<Record<FamilyId, ModelFamily>> = {
  qwen3: qwen3Family,
  qwen3_coder: qwen3CoderFamily,
  llama3: llama3Family,
  deepseek_v3: deepseekV3Family,
  gpt_oss: gptOssFamily,
  kimi_k2: kimiK2Family,
  mistral: mistralFamily,
};

/**
 * The family object for an id.
 * @throws ConfigError for an unknown id (the message lists the known ones).
 */
export function getFamily(id: FamilyId): ModelFamily {
  const f = (FAMILIES as Record<string, ModelFamily | undefined>)[id];
  if (!f) throw new ConfigError('renderer family', [{ path: 'family', message: `unknown family '${String(id)}'; known: ${FAMILY_IDS.join(', ')}` }]);
  return f;
}

/**
 * Detects the family of a model folder from `config.json`'s `model_type`, the tokenizer's added tokens and the chat
 * template's markers, trying the most specific families first (`FAMILY_IDS` order). A folder no rule matches is
 * `qwen3` (ChatML with Hermes `<tool_call>` blocks, agentrl's historical default and the embedded model's format).
 */
export function detectFamily(input: FamilyDetectInput): FamilyId {
  for (const id of FAMILY_IDS) if (FAMILIES[id].detect(input)) return id;
  return 'qwen3';
}
