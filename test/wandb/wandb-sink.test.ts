import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, Trainer, codeInterpreter, exactMatch, type Example, type MetricsSink } from 'agentrl';
import { wandbSink, type WandbSinkOptions } from 'agentrl/wandb';
import { fakeSandbox, mockBackend, scriptedSampler, type Script } from 'agentrl/testing';
import { localRenderer, toolCall } from '../helpers/local-renderer.js';
import { wandbServer } from '../helpers/wandb-server.js';

// What this file tests: the sink drives the real `@wandb/sdk` 0.5.1, and what that SDK sends over HTTP (run creation,
// history rows, the end of the run) carries the Trainer's config and every step's metrics. The W&B side is a loopback
// stand-in answering as the SDK's source expects; W&B's hosted service accepting the rows is not tested here.

const dataset: Example[] = [{ id: 'q1', question: 'What is 2 + 3?', answer: '5' }];
const budgets = { maxToolCalls: 2, maxTurns: 3, maxTurnTokens: 64, maxTrajectoryTokens: 512, maxToolResponseTokens: 32 };
const script: Script = ({ prompt, sample }) => (prompt.includes('<tool_response>') ? (sample === 0 ? '5' : '6') : toolCall('print(2 + 3)'));
const KEY = 'k'.repeat(40);

/** Two steps with a held-out eval before training (step 0) and after step 2; returns the records every sink got. */
async function train(sink: MetricsSink) {
  const renderer = await localRenderer();
  const records: Record<string, number | string>[] = [];
  const backend = mockBackend({ renderer, sampler: scriptedSampler({ renderer, script }), maxContextTokens: 4096 });
  const trainer = new Trainer({
    backend,
    env: codeInterpreter({ sandbox: fakeSandbox(async () => ({ status: 'ok', stdout: '5\n' })) }),
    reward: exactMatch(),
    dataset,
    eval: { dataset, every: 2, samples: 2 },
    loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 },
    groupSize: 2,
    questionsPerBatch: 1,
    maxSteps: 2,
    budgets,
    progress: false,
    runName: 'wandb sink test',
    sinks: [sink, { write: (r) => void records.push({ ...r }) }],
  });
  const result = await trainer.train();
  return { records, result };
}

const saved = { ...process.env };
afterEach(() => {
  vi.restoreAllMocks();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

function quiet() {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  return { warn, stderr };
}

/**
 * Trains with the sink `make` builds for a stand-in started with `server`; training must finish its 2 steps with
 * exactly one warning, matching `warning`. Returns the records and what the stand-in received.
 */
async function trainThroughFailure(server: Parameters<typeof wandbServer>[0], make: (url: string) => MetricsSink, warning: RegExp) {
  const w = await wandbServer(server);
  const { warn } = quiet();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const { records, result } = await train(make(w.url));
    expect(result.steps).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(warning);
    return { records, requests: w.requests };
  } finally {
    await w.close();
  }
}

// Hazard: metrics that never reach W&B, reach it under the wrong step or project, or a W&B failure that ends training.
describe('wandbSink over the real @wandb/sdk', () => {
  it('creates the run with the config and name, streams one history row per step at the Trainer step, and finishes it', async () => {
    const w = await wandbServer({ entity: 'test-team' });
    const { stderr, warn } = quiet();
    const sigint = process.listenerCount('SIGINT');
    try {
      const { records } = await train(wandbSink({ project: 'agentrl-test', apiKey: KEY, baseUrl: w.url }));
      expect(warn).not.toHaveBeenCalled();
      for (const r of w.requests) expect(r.headers.authorization).toBe(`Basic ${Buffer.from(`api:${KEY}`).toString('base64')}`);

      // No entity given: the SDK asks whose key it is, then creates the run there.
      const graphql = w.requests.filter((r) => r.path === '/graphql');
      expect(graphql[0]!.body.query).toContain('query Viewer');
      const upsert = graphql.find((r) => r.body.query?.includes('mutation UpsertBucket'))!.body.variables!;
      expect(upsert).toMatchObject({ project: 'agentrl-test', entity: 'test-team', displayName: 'wandb sink test' });
      const config = JSON.parse(upsert['config'] as string) as Record<string, unknown>;
      expect(config).toMatchObject({ runName: 'wandb sink test', groupSize: 2, maxSteps: 2, loss: { kind: 'ppo', clipLow: 0.8, clipHigh: 1.28 } });
      const id = upsert['name'] as string;
      expect(id).toMatch(/^[a-z0-9]{8}$/);

      // One row per record (step 0 = the before-training eval), W&B's _step = the Trainer's step, every value as written.
      expect(records.map((r) => r['step'])).toEqual([0, 1, 2]);
      const rows = w.history();
      expect(rows.map((r) => r['_step'])).toEqual([0, 1, 2]);
      records.forEach((record, i) => {
        const { step: _step, ...metrics } = record;
        for (const [k, v] of Object.entries(metrics)) expect(rows[i]![k], k).toBe(typeof v === 'number' && !Number.isFinite(v) ? null : v);
      });
      expect(rows[0]!['eval/average_at_n']).toBeTypeOf('number');
      expect(rows[2]!['eval/average_at_n']).toBeTypeOf('number');
      expect(rows[1]!['eval/average_at_n']).toBeUndefined();

      const streams = w.requests.filter((r) => r.path.endsWith('/file_stream'));
      expect(new Set(streams.map((r) => r.path))).toEqual(new Set([`/files/test-team/agentrl-test/${id}/file_stream`]));
      expect(streams.at(-1)!.body).toEqual({ complete: true, exitcode: 0 });
      const summary = streams.filter((r) => r.body.files?.['wandb-summary.json']).at(-1)!.body.files!['wandb-summary.json']!;
      expect(JSON.parse(summary.content[0]!)).toMatchObject({ _step: 2, 'reward/mean': records[2]!['reward/mean'] });

      expect(stderr.mock.calls.map((c) => String(c[0]))).toContain(`wandb: ${w.url}/test-team/agentrl-test/runs/${id}\n`);
      // The SDK's SIGINT handler (it calls process.exit) stays in its own thread.
      expect(process.listenerCount('SIGINT')).toBe(sigint);
    } finally {
      await w.close();
    }
  });

  it('uses the entity, id and name given, and WANDB_PROJECT / WANDB_API_KEY / WANDB_BASE_URL from the environment', async () => {
    const w = await wandbServer();
    quiet();
    Object.assign(process.env, { WANDB_PROJECT: 'from-env', WANDB_API_KEY: KEY, WANDB_BASE_URL: w.url });
    try {
      await train(wandbSink({ entity: 'my-team', id: 'run-42', name: 'my run' }));
      const upsert = w.requests.find((r) => r.body.query?.includes('mutation UpsertBucket'))!.body.variables!;
      expect(upsert).toMatchObject({ project: 'from-env', entity: 'my-team', name: 'run-42', displayName: 'my run' });
      expect(w.requests.some((r) => r.path === '/files/my-team/from-env/run-42/file_stream' && r.body.complete === true)).toBe(true);
      expect(w.history().map((r) => r['_step'])).toEqual([0, 1, 2]);
    } finally {
      await w.close();
    }
  });

  it('W&B refusing the key (HTTP 401): one warning naming it, and training finishes', async () => {
    const { records } = await trainThroughFailure(
      { status: 401 },
      (url) => wandbSink({ project: 'p', apiKey: KEY, baseUrl: url }),
      /^wandbSink: W&B run not recorded: .*HTTP 401 \(check the API key\).*metrics\.jsonl/,
    );
    expect(records.map((r) => r['step'])).toEqual([0, 1, 2]);
  });

  it('W&B refusing to create the run (HTTP 403 on the mutation): the SDK throws in its own thread, training goes on', async () => {
    await trainThroughFailure(
      { upsertStatus: 403 },
      (url) => wandbSink({ project: 'p', entity: 'e', apiKey: KEY, baseUrl: url }),
      /^wandbSink: the W&B SDK failed: Failed to upsert run \(W&B answered HTTP 403 \(check the API key\)\)/,
    );
  });

  it('W&B unreachable for history (HTTP 500, the SDK retrying): close() gives up after finishTimeoutMs with a warning', async () => {
    const t0 = Date.now();
    await trainThroughFailure(
      { fileStreamStatus: 500 },
      (url) => wandbSink({ project: 'p', entity: 'e', apiKey: KEY, baseUrl: url, finishTimeoutMs: 1500 }),
      /did not confirm the end of the run within 1500 ms.*last rows may be missing/,
    );
    expect(Date.now() - t0).toBeLessThan(60_000);
  });

  it('no API key anywhere: a warning that says to set WANDB_API_KEY, never a prompt, and training finishes', async () => {
    delete process.env['WANDB_API_KEY'];
    process.env['HOME'] = await mkdtemp(join(tmpdir(), 'agentrl-wandb-home-')); // no ~/.netrc
    const { requests } = await trainThroughFailure({}, (url) => wandbSink({ project: 'p', baseUrl: url }), /set the WANDB_API_KEY environment variable/);
    expect(requests).toHaveLength(0);
  });

  it('bad options are a ConfigError naming each field; a sink never started closes at once', async () => {
    const bad = { project: '', finishTimeoutMs: -1, baseUrl: 'ftp://x', id: 'a b', tags: ['x'] } as unknown as WandbSinkOptions;
    let err: unknown;
    try {
      wandbSink(bad);
    } catch (e) {
      err = e;
    }
    expect(ConfigError.isInstance(err)).toBe(true);
    expect((err as ConfigError).issues.map((i) => i.path).sort()).toEqual(['baseUrl', 'finishTimeoutMs', 'id', 'project', 'tags']);
    await wandbSink({ apiKey: KEY }).close!();
  });
});
