// Generates tokenizer.json + tokenizer_config.json for the embedded local model.
// Byte-level BPE with no merges: ids 0..255 are the 256 bytes (GPT-2 byte↔unicode map), then added tokens.
// Run: node assets/local-model/generate.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

/** GPT-2 `bytes_to_unicode`: printable bytes map to themselves, the rest to U+0100 upwards. */
function bytesToUnicode() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  const map = new Map();
  bs.forEach((b, i) => map.set(b, String.fromCodePoint(cs[i])));
  return map;
}

const byteMap = bytesToUnicode();
const vocab = {};
for (let b = 0; b < 256; b++) vocab[byteMap.get(b)] = b;

const specials = [
  ['<|endoftext|>', true],
  ['<|im_start|>', true],
  ['<|im_end|>', true],
  ['<tool_call>', false],
  ['</tool_call>', false],
  ['<tool_response>', false],
  ['</tool_response>', false],
  ['<think>', false],
  ['</think>', false],
];
const addedTokens = specials.map(([content, special], i) => ({
  id: 256 + i,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special,
}));

const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: addedTokens,
  normalizer: null,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
  post_processor: null,
  decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
  model: {
    type: 'BPE',
    dropout: null,
    unk_token: null,
    continuing_subword_prefix: null,
    end_of_word_suffix: null,
    fuse_unk: false,
    byte_fallback: false,
    ignore_merges: false,
    vocab,
    merges: [],
  },
};

// ChatML like Qwen's template, but the tool block is one compact line per tool: `Tools:` then `name(arg: type)`.
// Descriptions and the call-format preamble are left out: with byte-level tokens every character costs a
// position in every training sequence, and the embedded model learns the protocol from SFT, not from prose.
const chatTemplate = [
  "{%- if tools %}",
  "{{- '<|im_start|>system\\n' }}",
  "{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- 'Tools:' }}",
  "{%- for tool in tools %}",
  "{%- if tool.function %}{%- set tool = tool.function %}{%- endif %}",
  "{{- '\\n' + tool.name + '(' }}",
  "{%- if tool.parameters and tool.parameters.properties %}",
  "{%- for pname, pspec in tool.parameters.properties | items %}",
  "{%- if not loop.first %}{{- ', ' }}{%- endif %}",
  "{{- pname }}{%- if pspec.type %}{{- ': ' + pspec.type }}{%- endif %}",
  "{%- endfor %}",
  "{%- endif %}",
  "{{- ')' }}",
  "{%- endfor %}",
  "{{- '<|im_end|>\\n' }}",
  "{%- else %}",
  "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}",
  "{%- endif %}",
  "{%- for message in messages %}",
  "{%- if (message.role == 'user') or (message.role == 'system' and not loop.first) %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- elif message.role == 'assistant' %}",
  "{%- set content = message.content if message.content else '' %}",
  "{{- '<|im_start|>assistant\\n' + content }}",
  "{%- if message.tool_calls %}",
  "{%- for tool_call in message.tool_calls %}",
  "{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}",
  "{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}",
  "{{- '<tool_call>\\n{\"name\": \"' + tool_call.name + '\", \"arguments\": ' }}",
  "{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}",
  "{{- '}\\n</tool_call>' }}",
  "{%- endfor %}",
  "{%- endif %}",
  "{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}",
  "{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}",
  "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}",
  "{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join('\n');

const addedTokensDecoder = {};
for (const t of addedTokens) {
  const { id, ...rest } = t;
  addedTokensDecoder[String(id)] = rest;
}

const config = {
  add_bos_token: false,
  add_prefix_space: false,
  added_tokens_decoder: addedTokensDecoder,
  additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
  bos_token: null,
  chat_template: chatTemplate,
  clean_up_tokenization_spaces: false,
  eos_token: '<|im_end|>',
  errors: 'replace',
  model_max_length: 4096,
  pad_token: '<|endoftext|>',
  split_special_tokens: false,
  tokenizer_class: 'Qwen2Tokenizer',
  unk_token: null,
};

writeFileSync(join(here, 'tokenizer.json'), JSON.stringify(tokenizer, null, 2) + '\n');
writeFileSync(join(here, 'tokenizer_config.json'), JSON.stringify(config, null, 2) + '\n');
console.log(`wrote vocab ${256 + addedTokens.length}`);
