import type { BackendOptionFacts } from '../../types.js';
import { ADAM_DEFAULTS } from '../../adam-defaults.js';
import { checkEngineOptions } from './check-options.js';
import { ENGINE_NAMES, ENGINE_PROFILES, type EngineProfile } from './profiles.js';

/** One row of the capability table: a Trainer configuration and the option whose verdict is shown. */
interface Row {
  readonly label: string;
  readonly option: string;
  readonly facts: Partial<BackendOptionFacts>;
}

const ROWS: readonly Row[] = [
  { label: "loss.kind 'ppo'", option: 'loss.kind', facts: { loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 } } },
  { label: "loss.kind 'importance_sampling'", option: 'loss.kind', facts: { loss: { kind: 'importance_sampling' } } },
  { label: "loss.kind 'cispo'", option: 'loss.kind', facts: { loss: { kind: 'cispo', clipHigh: 4 } } },
  { label: "loss.kind 'cross_entropy'", option: 'loss.kind', facts: { loss: { kind: 'cross_entropy' } } },
  { label: "loss.kind 'gspo' / 'custom'", option: 'loss.kind', facts: { loss: { kind: 'gspo', clipLow: 0.9997, clipHigh: 1.0004 } } },
  { label: `optimizer.beta1 (default ${ADAM_DEFAULTS.beta1})`, option: 'optimizer.beta1', facts: {} },
  { label: `optimizer.beta2 (default ${ADAM_DEFAULTS.beta2})`, option: 'optimizer.beta2', facts: {} },
  { label: `optimizer.eps (default ${ADAM_DEFAULTS.eps})`, option: 'optimizer.eps', facts: {} },
  { label: `optimizer.weightDecay (default ${ADAM_DEFAULTS.weightDecay})`, option: 'optimizer.weightDecay', facts: {} },
  { label: `optimizer.gradClipNorm (default ${ADAM_DEFAULTS.gradClipNorm})`, option: 'optimizer.gradClipNorm', facts: {} },
  { label: 'optimizer.learningRate (+ schedule)', option: 'optimizer.learningRate', facts: {} },
  { label: "kl.reference 'base'", option: 'kl.reference', facts: { kl: { reference: 'base', placement: 'advantage' } } },
  { label: 'kl.reference: a SamplingClient', option: 'kl.reference', facts: { kl: { reference: 'client', placement: 'advantage' } } },
  { label: "kl.placement 'loss'", option: 'kl.placement', facts: { kl: { reference: 'client', placement: 'loss' } } },
  { label: 'rolloutCorrection', option: 'rolloutCorrection', facts: { rolloutCorrection: true } },
  { label: 'async.maxStaleness > 0', option: 'async.maxStaleness', facts: { maxStaleness: 2 } },
  { label: 'resume (loadState on a new model)', option: 'resume', facts: { resume: true } },
  { label: 'retrieve_future polls', option: 'timeouts.pollMs', facts: {} },
];

const BASE: BackendOptionFacts = {
  loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
  optimizer: { ...ADAM_DEFAULTS },
  rolloutCorrection: false,
  distill: false,
  maxStaleness: 0,
  resume: false,
};

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function verdictOf(p: EngineProfile, row: Row): { outcome: string; reason: string } {
  const v = checkEngineOptions(p, { ...BASE, ...row.facts }).find((x) => x.option === row.option);
  return v ?? { outcome: 'exact', reason: '' };
}

/**
 * The capability table of docs/engines.md, generated from {@link ENGINE_PROFILES} through `checkEngineOptions` (the
 * same code the Trainer runs): a summary (engine × option: exact / adapted / refused), then each non-exact verdict with
 * its reason, then the profile facts per engine with their source lines. `scripts/engines-table.ts` writes it;
 * a test checks that the committed docs match.
 */
export function renderEngineTable(): string {
  const out: string[] = [];
  out.push(`| option | ${ENGINE_NAMES.join(' | ')} |`);
  out.push(`|---|${ENGINE_NAMES.map(() => '---').join('|')}|`);
  for (const row of ROWS) {
    out.push(`| ${cell(row.label)} | ${ENGINE_NAMES.map((e) => verdictOf(ENGINE_PROFILES[e], row).outcome).join(' | ')} |`);
  }
  const d = ADAM_DEFAULTS;
  out.push(
    '',
    `Defaults are the Trainer's (\`optimizer\` β1 ${d.beta1}, β2 ${d.beta2}, ε ${d.eps}, weight decay ${d.weightDecay}, clip ${d.gradClipNorm}). Why each verdict that is not \`exact\`:`,
    '',
  );
  for (const e of ENGINE_NAMES) {
    const p = ENGINE_PROFILES[e];
    const lines = ROWS.map((row) => ({ row, v: verdictOf(p, row) })).filter(({ v }) => v.outcome !== 'exact');
    if (lines.length === 0) continue;
    out.push(`- **${e}**`);
    for (const { row, v } of lines) out.push(`  - ${row.label} — ${v.outcome}: ${v.reason}`);
  }
  out.push('', '### Profile facts and their sources', '');
  for (const e of ENGINE_NAMES) {
    const p = ENGINE_PROFILES[e];
    const losses = Object.entries(p.losses)
      .map(([k, l]) => (l.supported ? `${k}${l.configKeys.length ? ` (${l.configKeys.join(', ')})` : ''}` : `~~${k}~~`))
      .join(', ');
    const src = (k: keyof EngineProfile['sources']) => (p.sources[k] ? ` — \`${p.sources[k]}\`` : '');
    out.push(`#### ${e}: ${p.title} (${p.source})`, '');
    out.push(`- losses: ${losses}${src('losses')}`);
    out.push(`- normalisation: ${p.normalisation}${src('normalisation')}`);
    out.push(
      `- optimizer fields applied from adam_params: ${p.honouredOptimizer.join(', ')}${
        Object.keys(p.fixedOptimizer).length
          ? `; fixed by the server: ${Object.entries(p.fixedOptimizer)
              .map(([k, x]) => `${k} ${x}`)
              .join(', ')}`
          : ''
      }${src('honouredOptimizer')}${src('fixedOptimizer')}`,
    );
    out.push(`- prompt logprobs: ${p.promptLogprobs}${src('promptLogprobs')}`);
    out.push(`- /api/v1/forward: ${p.forward ? 'yes' : 'no'}${src('forward')}`);
    out.push(`- sampler checkpoints: ${p.samplers}; sampler logprobs: ${p.samplerLogprobs}${src('samplers')}${src('samplerLogprobs')}`);
    out.push(
      `- models per server: ${Number.isFinite(p.modelsPerServer) ? p.modelsPerServer : 'no limit agentrl reaches'}; unload_model: ${p.unloadModel ? 'yes' : 'no'}${src('modelsPerServer')}${src('unloadModel')}`,
    );
    out.push(`- retrieve_future hold: ${p.pollHold.ms / 1000} s, then ${p.pollHold.answer === '408' ? 'HTTP 408' : 'try_again'}${src('pollHold')}`);
    out.push(`- forward_backward bodies: ${[p.wire.json ? 'JSON' : '', p.wire.protobuf ? 'protobuf' : ''].filter(Boolean).join(' + ')}${src('wire')}`);
    const arch = p.checkpointRoutes.archive;
    out.push(
      `- checkpoint routes: list ${p.checkpointRoutes.listForUser ?? 'none'}; archive ${arch ? `${arch.path} (${arch.kinds.join(', ')})` : 'none'}${src('checkpointRoutes')}`,
    );
    out.push(`- errors: HTTP ${p.errors.statuses.join(', ')} with {${p.errors.field}}${src('errors')}`);
    for (const line of p.start) out.push(`- start / connect: ${line}`);
    out.push(
      `- seq_id: ${p.seq.ordered ? 'run in seq_id order' : 'not ordered'}; a refused request ${p.seq.refusedConsumes ? 'uses up' : 'does not use up'} its id; a failed one ${p.seq.failedConsumes ? 'uses it up' : 'does not'}${src('seq')}`,
    );
    out.push('');
  }
  return out.join('\n').trimEnd() + '\n';
}

/** Markers around the generated part of docs/engines.md. */
export const TABLE_START = '<!-- engines-table:start (generated by `npx tsx scripts/engines-table.ts`; do not edit) -->';
export const TABLE_END = '<!-- engines-table:end -->';

/** `doc` with the part between the markers replaced by {@link renderEngineTable}. @throws Error when a marker is missing. */
export function withEngineTable(doc: string): string {
  const a = doc.indexOf(TABLE_START);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error('docs/engines.md: engines-table markers not found');
  return `${doc.slice(0, a + TABLE_START.length)}\n${renderEngineTable()}${doc.slice(b)}`;
}
