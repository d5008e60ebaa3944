// Generates tokenizer.json + tokenizer_config.json for the embedded local model.
//
// Byte-level BPE (GPT-2 byte↔unicode map, ids 0..255 are the bytes) with
//  - digits pre-split into pairs, left to right, and every 2-digit string a token (100 more number tokens), so copying
//    a number from the question into code is copying one or two tokens of a small, frequently seen set;
//  - `WORD_MERGES` merges learned on the rendered SFT demonstrations of the bundled examples (ReTool, search, SQL),
//    so protocol strings and template words cost few positions;
//  - every word of the search example's passages (country names, capitals, currencies, dishes) one token, so the
//    search and SQL agents copy entities as single tokens;
//  - the ChatML added tokens after the merged vocabulary.
// A tiny model cannot learn multi-token copying (induction over byte strings) from a cold start in minutes on a
// CPU; it can learn to copy single tokens. See docs/status.md.
//
// Run: node --import tsx assets/local-model/generate.ts   (deterministic; re-run when an example's demos change,
// then regenerate the examples' SFT checkpoints, whose vocabulary must match)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMathDataset, loadRenderer, type Datum, type Renderer } from 'agentrl';

const here = dirname(fileURLToPath(import.meta.url));
const WORD_MERGES = 1024;

/**
 * Pre-tokenizer split: letters, digit runs of at most two, punctuation runs and whitespace are separate
 * pre-tokens. Unlike GPT-2/Llama patterns no word carries a leading space or punctuation, so a name or number
 * is the same token(s) wherever it appears (question, tool call, tool output, answer): copying is a token copy.
 */
const SPLIT = '\\p{L}+|\\p{N}{1,2}|[^\\s\\p{L}\\p{N}]+|\\s+';

/** GPT-2 `bytes_to_unicode`: printable bytes map to themselves, the rest to U+0100 upwards. */
function bytesToUnicode(): string[] {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const out = new Array<string>(256);
  for (const b of bs) out[b] = String.fromCodePoint(b);
  let n = 0;
  for (let b = 0; b < 256; b++) if (out[b] === undefined) out[b] = String.fromCodePoint(256 + n++);
  return out;
}

const byteChar = bytesToUnicode();
const toSymbols = (s: string): string[] => [...new TextEncoder().encode(s)].map((b) => byteChar[b]!);

const SPECIALS: [string, boolean][] = [
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

function tokenizerJson(vocab: Record<string, number>, merges: [string, string][]): object {
  const firstAdded = Object.keys(vocab).length;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(([content, special], i) => ({
      id: firstAdded + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: SPLIT }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
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
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

// ChatML like Qwen's template, but the tool block is one compact line per tool: `Tools:` then `name(arg: type)`.
// Descriptions and the call-format preamble are left out: every token costs a position in every training
// sequence, and the embedded model learns the protocol from SFT, not from prose.
const chatTemplate = [
  '{%- if tools %}',
  "{{- '<|im_start|>system\\n' }}",
  "{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- 'Tools:' }}",
  '{%- for tool in tools %}',
  '{%- if tool.function %}{%- set tool = tool.function %}{%- endif %}',
  "{{- '\\n' + tool.name + '(' }}",
  '{%- if tool.parameters and tool.parameters.properties %}',
  '{%- for pname, pspec in tool.parameters.properties | items %}',
  "{%- if not loop.first %}{{- ', ' }}{%- endif %}",
  "{{- pname }}{%- if pspec.type %}{{- ': ' + pspec.type }}{%- endif %}",
  '{%- endfor %}',
  '{%- endif %}',
  "{{- ')' }}",
  '{%- endfor %}',
  "{{- '<|im_end|>\\n' }}",
  '{%- else %}',
  "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}",
  '{%- endif %}',
  '{%- for message in messages %}',
  "{%- if (message.role == 'user') or (message.role == 'system' and not loop.first) %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- elif message.role == 'assistant' %}",
  "{%- set content = message.content if message.content else '' %}",
  "{{- '<|im_start|>assistant\\n' + content }}",
  '{%- if message.tool_calls %}',
  '{%- for tool_call in message.tool_calls %}',
  "{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}",
  '{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}',
  '{{- \'<tool_call>\\n{"name": "\' + tool_call.name + \'", "arguments": \' }}',
  "{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson(separators=(',', ':')) }}{%- endif %}",
  "{{- '}\\n</tool_call>' }}",
  '{%- endfor %}',
  '{%- endif %}',
  "{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}",
  "{%- if loop.first or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}",
  "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}",
  '{%- endif %}',
  '{%- endfor %}',
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join('\n');

function tokenizerConfig(firstAdded: number): object {
  const decoder: Record<string, object> = {};
  SPECIALS.forEach(([content, special], i) => {
    decoder[String(firstAdded + i)] = { content, single_word: false, lstrip: false, rstrip: false, normalized: false, special };
  });
  return {
    add_bos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: decoder,
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
}

/** Byte vocabulary plus every 2-digit string, with its merge. */
function baseVocab(): { vocab: Record<string, number>; merges: [string, string][] } {
  const vocab: Record<string, number> = {};
  byteChar.forEach((c, b) => {
    vocab[c] = b;
  });
  const merges: [string, string][] = [];
  for (let n = 0; n < 100; n++) {
    const s = String(n).padStart(2, '0');
    merges.push([s[0]!, s[1]!]);
    vocab[s] = Object.keys(vocab).length;
  }
  return { vocab, merges };
}

/** Standard BPE training on word counts: merge the most frequent adjacent pair, `count` times (ties by string order). */
function learnMerges(words: Map<string, number>, count: number, vocab: Record<string, number>, merges: [string, string][]): void {
  const seqs = [...words].map(([w, n]) => ({ syms: toSymbols(w), n }));
  const hasDigit = /[0-9]/;
  for (let m = 0; m < count; m++) {
    const pairs = new Map<string, number>();
    for (const { syms, n } of seqs) {
      for (let i = 0; i + 1 < syms.length; i++) {
        if (hasDigit.test(syms[i]!) || hasDigit.test(syms[i + 1]!)) continue;
        const k = syms[i] + '\u0000' + syms[i + 1];
        pairs.set(k, (pairs.get(k) ?? 0) + n);
      }
    }
    let best: string | undefined;
    let bestN = 1;
    for (const [k, n] of pairs) if (n > bestN || (n === bestN && best !== undefined && k < best)) [best, bestN] = [k, n];
    if (best === undefined) break;
    const [a, b] = best.split('\u0000') as [string, string];
    merges.push([a, b]);
    vocab[a + b] ??= Object.keys(vocab).length;
    for (const s of seqs) {
      const out: string[] = [];
      for (let i = 0; i < s.syms.length; i++) {
        if (s.syms[i] === a && s.syms[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(s.syms[i]!);
      }
      s.syms = out;
    }
  }
}

/** BPE-encodes one pre-token: repeatedly merges the adjacent pair of lowest rank. */
function bpe(word: string, rank: Map<string, number>): string[] {
  let syms = toSymbols(word);
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i + 1 < syms.length; i++) {
      const r = rank.get(syms[i] + ' ' + syms[i + 1]);
      if (r !== undefined && r < bestRank) [best, bestRank] = [i, r];
    }
    if (best < 0) return syms;
    syms = [...syms.slice(0, best), syms[best]! + syms[best + 1]!, ...syms.slice(best + 2)];
  }
}

/**
 * Makes each of `words` a single token by appending merges that join its current pieces left to right
 * (appended merges rank after all earlier ones, so no earlier word's tokenization changes).
 */
function addWholeWords(words: readonly string[], vocab: Record<string, number>, merges: [string, string][]): number {
  const rank = new Map(merges.map(([a, b], i) => [a + ' ' + b, i]));
  let added = 0;
  for (const w of words) {
    let segs = bpe(w, rank);
    while (segs.length > 1) {
      const [a, b] = segs as [string, string];
      rank.set(a + ' ' + b, merges.length);
      merges.push([a, b]);
      vocab[a + b] ??= Object.keys(vocab).length;
      segs = [a + b, ...segs.slice(2)];
      added++;
    }
  }
  return added;
}

/** Entity words the search and SQL agents must copy (country names, capitals, currencies, dishes): one token each. */
async function entityWords(): Promise<string[]> {
  const searchCfg = await import('../../examples/search-agent/config.js');
  const words = new Set<string>();
  for (const line of readFileSync(searchCfg.PATHS.corpus, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const p = JSON.parse(line) as { title: string; contents: string };
    for (const w of `${p.title} ${p.contents}`.match(/\p{L}+/gu) ?? []) words.add(w);
  }
  return [...words].sort();
}

/** The text of every SFT demonstration of the bundled examples, rendered with the byte-level bootstrap tokenizer. */
async function demonstrationTexts(renderer: Renderer): Promise<string[]> {
  const texts: string[] = [];
  const add = (ds: readonly Datum[]) =>
    ds.forEach((d) => {
      texts.push(renderer.decode([...d.modelInput, d.targetTokens.at(-1)!]));
    });

  const retool = await import('../../examples/retool/demos.js');
  const retoolCfg = await import('../../examples/retool/config.js');
  add((await retool.buildDemoDatums(renderer, retool.renderOnlyEnv(), await loadMathDataset(retoolCfg.PATHS.train), { seed: 7 })).datums);

  const search = await import('../../examples/search-agent/demos.js');
  const searchEnv = await import('../../examples/search-agent/env.js');
  const searchCfg = await import('../../examples/search-agent/config.js');
  const senv = searchEnv.searchEnv(await searchEnv.makeRetriever());
  add(
    (await search.buildDemoDatums(renderer, senv, await loadMathDataset(searchCfg.PATHS.train), { seed: 7, epochs: 4, maxToolResponseTokens: 1_000_000 }))
      .datums,
  );
  await senv.close?.();
  // Every passage the retriever can return (entity names of all countries, not only the training questions').
  for (const line of readFileSync(searchCfg.PATHS.corpus, 'utf8').split('\n')) {
    if (line.trim()) {
      const p = JSON.parse(line) as { title: string; contents: string };
      texts.push(`(Title: ${p.title}) ${p.contents}\n`);
    }
  }

  const sql = await import('../../examples/sql-agent/demos.js');
  const sqlEnv = await import('../../examples/sql-agent/env.js');
  const sqlCfg = await import('../../examples/sql-agent/config.js');
  const qenv = sqlEnv.sqlEnv(sqlEnv.loadDatabase());
  add((await sql.buildDemoDatums(renderer, qenv, await loadMathDataset(sqlCfg.PATHS.train), { seed: 7, epochs: 4, maxToolResponseTokens: 1_000_000 })).datums);
  await qenv.close?.();
  return texts;
}

async function main(): Promise<void> {
  const base = baseVocab();
  const boot = mkdtempSync(join(tmpdir(), 'agentrl-tok-'));
  let texts: string[];
  try {
    // Bootstrap: bytes only, so decoding a rendered demonstration gives back its exact text.
    const byteVocab: Record<string, number> = {};
    byteChar.forEach((c, b) => {
      byteVocab[c] = b;
    });
    writeFileSync(join(boot, 'tokenizer.json'), JSON.stringify(tokenizerJson(byteVocab, [])));
    writeFileSync(join(boot, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig(256)));
    texts = await demonstrationTexts(await loadRenderer({ dir: boot }));
  } finally {
    rmSync(boot, { recursive: true, force: true });
  }
  const special = new RegExp(SPECIALS.map(([s]) => s.replace(/[|/<>]/g, (c) => `\\${c}`)).join('|'), 'g');
  const split = new RegExp(SPLIT, 'gu');
  const words = new Map<string, number>();
  for (const t of texts) {
    for (const piece of t.split(special)) for (const m of piece.matchAll(split)) words.set(m[0], (words.get(m[0]) ?? 0) + 1);
  }
  learnMerges(words, WORD_MERGES, base.vocab, base.merges);
  const whole = addWholeWords(await entityWords(), base.vocab, base.merges);
  const firstAdded = Object.keys(base.vocab).length;
  writeFileSync(join(here, 'tokenizer.json'), JSON.stringify(tokenizerJson(base.vocab, base.merges), null, 1) + '\n');
  writeFileSync(join(here, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig(firstAdded), null, 2) + '\n');
  console.log(
    `${texts.length} demonstrations, ${words.size} distinct pre-tokens → vocab ${firstAdded + SPECIALS.length} (${base.merges.length} merges, ${whole} of them for whole entity words)`,
  );
}

await main();
