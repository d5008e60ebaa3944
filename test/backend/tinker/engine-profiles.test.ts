import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Trainer, codeInterpreter, tinkerBackend, type Reward } from 'agentrl';
import { fakeSandbox } from 'agentrl/testing';
import { ConfigError } from '../../../src/errors/index.js';
import { ENGINE_NAMES, ENGINE_PROFILES, type EngineName } from '../../../src/backend/tinker/engines/profiles.js';
import { checkEngineOptions, pollMsFor } from '../../../src/backend/tinker/engines/check-options.js';
import { detectEngine } from '../../../src/backend/tinker/engines/detect.js';
import { alignPromptLogprobs } from '../../../src/backend/tinker/sampling-client.js';
import { ADAM_DEFAULTS } from '../../../src/backend/adam-defaults.js';
import type { BackendOptionFacts, OptionVerdict } from '../../../src/backend/types.js';

const RENDERER = fileURLToPath(new URL('../../../assets/local-model', import.meta.url));
const facts = (extra: Partial<BackendOptionFacts> = {}): BackendOptionFacts => ({
  loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
  optimizer: { ...ADAM_DEFAULTS },
  rolloutCorrection: false,
  distill: false,
  maxStaleness: 0,
  resume: false,
  ...extra,
});
const verdict = (engine: EngineName, option: string, f: BackendOptionFacts = facts()): OptionVerdict | undefined =>
  checkEngineOptions(ENGINE_PROFILES[engine], f).find((v) => v.option === option);

describe('engine profiles: one verdict per option', () => {
  it('every profile names itself and cites a source for what it states', () => {
    for (const name of ENGINE_NAMES) {
      const p = ENGINE_PROFILES[name];
      expect(p.name).toBe(name);
      expect(p.source.length).toBeGreaterThan(3);
      expect(Object.keys(p.sources).length).toBeGreaterThan(1);
    }
  });

  it('native losses: exact on token-sum engines, adapted on SkyRL-JAX (per-sequence mean), adapted to the custom path where the engine lacks the loss_fn', () => {
    for (const kind of ['ppo', 'importance_sampling', 'cross_entropy'] as const) {
      const loss = kind === 'ppo' ? { kind, clipLow: 0.7, clipHigh: 1.3 } : { kind };
      expect(verdict('tinker', 'loss.kind', facts({ loss }))!.outcome).toBe('exact');
      expect(verdict('tuft', 'loss.kind', facts({ loss }))!.outcome).toBe('exact');
      expect(verdict('skyrl-fsdp', 'loss.kind', facts({ loss }))!.outcome).toBe('exact');
      const jax = verdict('skyrl-jax', 'loss.kind', facts({ loss }))!;
      expect(jax.outcome).toBe('adapted');
      expect(jax.reason).toMatch(/weight sum/);
    }
    for (const engine of ['skyrl-fsdp', 'skyrl-megatron', 'open-rl'] as const) {
      const v = verdict(engine, 'loss.kind', facts({ loss: { kind: 'cispo', clipHigh: 4 } }))!;
      expect(v.outcome).toBe('adapted');
      expect(v.reason).toMatch(/no 'cispo' loss_fn/);
    }
    // open-rl's ppo clips at 1 ± clip_range and ignores the thresholds: ppo runs as a custom loss there.
    const openRlPpo = verdict('open-rl', 'loss.kind', facts({ loss: { kind: 'ppo', clipLow: 0.7, clipHigh: 1.28 } }))!;
    expect([openRlPpo.outcome, /clip_range/.test(openRlPpo.reason)]).toEqual(['adapted', true]);
    // gspo / custom run as forward + weighted backward: open-rl has no forward route (zero-weight forward_backward).
    expect(verdict('open-rl', 'loss.kind', facts({ loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 } }))!.reason).toMatch(/no \/api\/v1\/forward/);
    expect(verdict('skyrl-jax', 'loss.kind', facts({ loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 } }))!.reason).toMatch(/1e-9/);
    expect(verdict('agentrl', 'loss.kind', facts({ loss: { kind: 'gspo', clipLow: 0.9, clipHigh: 1.1 } }))!.outcome).toBe('exact');
  });

  it('optimizer fields SkyRL-Train ignores: exact only at its own config values, refused otherwise with the value to set', () => {
    const fsdp = (o: Partial<typeof ADAM_DEFAULTS>) => checkEngineOptions(ENGINE_PROFILES['skyrl-fsdp'], facts({ optimizer: { ...ADAM_DEFAULTS, ...o } }));
    const refused = fsdp({})
      .filter((v) => v.outcome === 'refused')
      .map((v) => v.option);
    expect(refused).toEqual(['optimizer.beta2', 'optimizer.weightDecay']); // β1 0.9, eps 1e-8, clip 1 match SkyRL-Train's
    expect(fsdp({ beta2: 0.999, weightDecay: 0.01 }).filter((v) => v.outcome === 'refused')).toEqual([]);
    expect(
      fsdp({ beta1: 0.8, beta2: 0.999, weightDecay: 0.01, gradClipNorm: 0 })
        .filter((v) => v.outcome === 'refused')
        .map((v) => v.option),
    ).toEqual(['optimizer.beta1', 'optimizer.gradClipNorm']);
    expect(fsdp({}).find((v) => v.option === 'optimizer.beta2')!.reason).toMatch(
      /skyrl-fsdp ignores adam_params\.beta2 and uses 0\.999.*set optimizer\.beta2: 0\.999/,
    );
    // JAX honours Adam but never clips: only gradClipNorm 0 is exact.
    const jax = (clip: number) => verdict('skyrl-jax', 'optimizer.gradClipNorm', facts({ optimizer: { ...ADAM_DEFAULTS, gradClipNorm: clip } }))!.outcome;
    expect([jax(1), jax(0.5), jax(0)]).toEqual(['refused', 'refused', 'exact']);
    expect(verdict('skyrl-jax', 'optimizer.beta2')!.outcome).toBe('exact');
    for (const e of ['tinker', 'tuft', 'open-rl', 'agentrl'] as const)
      expect(checkEngineOptions(ENGINE_PROFILES[e], facts()).some((v) => v.outcome === 'refused')).toBe(false);
  });

  it("kl.reference 'base': refused where samplers are not frozen or give no prompt logprobs; a passed-in sampler is exact everywhere", () => {
    const base = facts({ kl: { reference: 'base', placement: 'advantage' } });
    const outcome = (e: EngineName) => verdict(e, 'kl.reference', base)!.outcome;
    expect(ENGINE_NAMES.map((e) => [e, outcome(e)])).toEqual([
      ['tinker', 'exact'],
      ['skyrl-jax', 'refused'],
      ['skyrl-fsdp', 'refused'],
      ['skyrl-megatron', 'refused'],
      ['tuft', 'exact'],
      ['open-rl', 'refused'],
      ['agentrl', 'exact'],
    ]);
    expect(verdict('skyrl-fsdp', 'kl.reference', base)!.reason).toMatch(/current policy/);
    expect(verdict('skyrl-jax', 'kl.reference', base)!.reason).toMatch(/roll the trained weights back/);
    for (const e of ENGINE_NAMES) expect(verdict(e, 'kl.reference', facts({ kl: { reference: 'client', placement: 'advantage' } }))!.outcome).toBe('exact');
  });

  it('async.maxStaleness > 0 is refused where old samplers are not frozen; 0 is not checked', () => {
    const stale = facts({ maxStaleness: 2 });
    expect(verdict('skyrl-jax', 'async.maxStaleness', stale)!.outcome).toBe('refused');
    expect(verdict('skyrl-megatron', 'async.maxStaleness', stale)!.outcome).toBe('refused');
    expect(verdict('tuft', 'async.maxStaleness', stale)!.outcome).toBe('exact');
    expect(verdict('open-rl', 'async.maxStaleness', stale)!.reason).toMatch(/current policy/);
    expect(verdict('skyrl-jax', 'async.maxStaleness')).toBeUndefined();
  });

  it('rollout correction, resume and the poll deadline per engine', () => {
    expect(verdict('skyrl-jax', 'rolloutCorrection', facts({ rolloutCorrection: true }))!.outcome).toBe('adapted');
    expect(verdict('skyrl-fsdp', 'rolloutCorrection', facts({ rolloutCorrection: true }))!.outcome).toBe('exact');
    expect(verdict('skyrl-fsdp', 'resume', facts({ resume: true }))!.reason).toMatch(/unload_model/);
    expect(verdict('tinker', 'resume', facts({ resume: true }))!.outcome).toBe('exact');
    expect(verdict('skyrl-megatron', 'resume', facts({ resume: true }))!.outcome).toBe('exact'); // several LoRA models
    expect(pollMsFor(ENGINE_PROFILES['skyrl-jax'])).toBe(315_000);
    expect(pollMsFor(ENGINE_PROFILES.tuft)).toBe(135_000);
    expect(pollMsFor(ENGINE_PROFILES['open-rl'])).toBe(75_000);
    expect(pollMsFor(ENGINE_PROFILES.tinker)).toBe(45_000);
    expect(verdict('skyrl-fsdp', 'timeouts.pollMs')!.reason).toMatch(/300 s \(then HTTP 408\)/);
  });
});

describe("engine 'auto': what /client/config reveals", () => {
  it('agentrl serve names itself; TuFT and open-rl by their flag sets; SkyRL must be named; anything else is hosted Tinker with a warning', () => {
    expect(detectEngine({ agentrl_engine: 'agentrl', proto_write_fwdbwd: true }, true)).toEqual({ engine: 'agentrl' });
    expect(
      detectEngine(
        {
          pjwt_auth_enabled: false,
          credential_default_source: 'api_key',
          sample_dispatch_bytes_semaphore_size: 1,
          inflight_response_bytes_semaphore_size: 2,
          parallel_fwdbwd_chunks: false,
        },
        true,
      ).engine,
    ).toBe('tuft');
    expect(
      detectEngine(
        { pjwt_auth_enabled: false, credential_default_source: 'api_key', sample_dispatch_bytes_semaphore_size: 1, inflight_response_bytes_semaphore_size: 2 },
        true,
      ).engine,
    ).toBe('open-rl');
    expect(() => detectEngine({ pjwt_auth_enabled: false }, true)).toThrow(ConfigError);
    expect(() => detectEngine({ pjwt_auth_enabled: false }, true)).toThrow(/skyrl-jax', 'skyrl-fsdp' or 'skyrl-megatron/);
    for (const [cfg, answered] of [
      [{}, false],
      [{ pjwt_auth_enabled: true }, true],
      [{ proto_write_fwdbwd: true, fwdbwd_max_chunk_len: 1024 }, true],
    ] as const) {
      const d = detectEngine(cfg, answered);
      expect(d.engine).toBe('tinker');
      expect(d.warning).toMatch(/assuming hosted Tinker/);
    }
  });
});

describe('prompt logprobs re-aligned to N entries, entry 0 null', () => {
  it('N entries keep their values after a null; N−1 (SkyRL-JAX) get a leading null; other counts are refused', () => {
    expect(alignPromptLogprobs([null, -1, -2], 3, 'N')).toEqual([null, -1, -2]);
    expect(alignPromptLogprobs([-9, -1, -2], 3, 'N-1')).toEqual([null, -1, -2]);
    expect(alignPromptLogprobs([-1, -2], 3, 'N-1')).toEqual([null, -1, -2]);
    expect(() => alignPromptLogprobs([-1, -2], 3, 'N')).toThrow(/2 prompt logprobs for 3 tokens/);
    expect(() => alignPromptLogprobs([-1], 3, 'N-1')).toThrow(/expected 3 or 2/);
    expect(() => alignPromptLogprobs(undefined, 3, 'N')).toThrow(/no prompt logprobs/);
  });
});

describe('the Trainer checks every option against the engine before the first rollout', () => {
  const reward: Reward = () => ({ reward: 1, correct: true, validFormat: true });
  const trainer = (engine: EngineName, extra: Record<string, unknown> = {}) =>
    new Trainer({
      backend: tinkerBackend({ engine, baseUrl: 'http://127.0.0.1:9', apiKey: 'tml-x', baseModel: 'm', renderer: RENDERER, maxContextTokens: 128 }),
      env: codeInterpreter({ sandbox: fakeSandbox(() => ({ stdout: '' })), systemPrompt: null }),
      reward,
      loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
      dataset: [{ id: 'a', question: 'q', answer: '1' }],
      progress: false,
      ...extra,
    } as never);

  it('refuses with a ConfigError naming option and engine (no request is made: the server address is closed)', () => {
    const e = (() => {
      try {
        trainer('skyrl-fsdp', { kl: { coef: 0.1 } });
      } catch (err) {
        return err;
      }
      return undefined;
    })() as ConfigError;
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.issues.map((i) => i.path).sort()).toEqual(['kl.reference', 'optimizer.beta2', 'optimizer.weightDecay']);
    expect(e.message).toMatch(/kl\.reference: refused by backend 'tinker': skyrl-fsdp samples every sampler with the current policy/);
    expect(() => trainer('skyrl-jax')).toThrow(/optimizer\.gradClipNorm: .*skyrl-jax ignores adam_params\.gradClipNorm/);
  });

  it('accepts a configuration the engine runs exactly or adapted', () => {
    expect(() =>
      trainer('skyrl-fsdp', { optimizer: { learningRate: 1e-5, beta2: 0.999, weightDecay: 0.01 }, loss: { kind: 'cispo', clipHigh: 4 } }),
    ).not.toThrow();
    expect(() =>
      trainer('skyrl-jax', { optimizer: { learningRate: 1e-5, gradClipNorm: 0 }, rolloutCorrection: { level: 'token', mode: 'truncate', cap: 2 } }),
    ).not.toThrow();
    expect(() => trainer('tuft', { kl: { coef: 0.1 }, async: { maxStaleness: 1 } })).not.toThrow();
  });
});
