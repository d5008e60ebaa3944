import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from 'agentrl';
import { CheckpointStore } from '../../src/trainer/checkpoint-store.js';
import { findResumePoint, truncateRunLogs } from '../../src/trainer/resume.js';

const state = (step: number) => ({ step, batchesConsumed: step, seed: 1, weightsVersion: step });
const writeBackend = async (dir: string) => {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.bin'), 'weights');
};

/** Hazard: resuming from a half-written checkpoint, or disks filling with every checkpoint ever written. */
describe('CheckpointStore', () => {
  it('keeps the newest keepLast complete checkpoints and ignores interrupted writes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'agentrl-ckpt-'));
    const store = new CheckpointStore(root, 2);
    // Leftovers of a killed writer: a temporary folder and a step folder without trainer-state.json.
    await mkdir(join(root, '.tmp-step-9-999999-1'), { recursive: true });
    await mkdir(join(root, 'step-00007', 'backend'), { recursive: true });
    for (const s of [1, 2, 3]) await store.save(state(s), writeBackend);
    expect((await store.list()).map((r) => r.state.step)).toEqual([2, 3]);
    expect((await store.latest())!.state).toMatchObject({ format: 'agentrl-trainer-v1', step: 3, batchesConsumed: 3 });
    expect(await readdir(root)).not.toContain('.tmp-step-9-999999-1');
    expect(await readdir(join(root, 'step-00003'))).toEqual(['backend', 'trainer-state.json']);
  });

  it("resume 'latest' starts fresh without checkpoints; a named folder without one is an error", async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'agentrl-resume-'));
    expect(await findResumePoint('latest', logDir)).toBeUndefined();
    await expect(findResumePoint(logDir, logDir)).rejects.toThrow(CheckpointError);
    await new CheckpointStore(join(logDir, 'checkpoints'), 3).save(state(4), writeBackend);
    expect((await findResumePoint(logDir, undefined))!.state.step).toBe(4);
    expect((await findResumePoint(join(logDir, 'checkpoints', 'step-00004'), undefined))!.state.step).toBe(4);
  });

  it('truncates the run logs to the checkpoint step, dropping a line cut off by the crash', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'agentrl-trunc-'));
    await writeFile(join(logDir, 'metrics.jsonl'), [1, 2, 3, 4].map((step) => JSON.stringify({ step })).join('\n') + '\n{"step": 5, "rew');
    await truncateRunLogs(logDir, 2);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(join(logDir, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n{"step":2}\n');
  });
});
