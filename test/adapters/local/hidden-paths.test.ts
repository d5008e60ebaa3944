import { afterAll, describe, expect, it } from 'vitest';
import { localSandbox } from 'agentrl/adapters/local';

/** Hazard: model code reading the trainer's project (data, checkpoints, keys in config files). */
describe('local sandbox hides the trainer’s files', () => {
  const sandbox = localSandbox({ workers: 1, timeoutMs: 10_000 });
  afterAll(() => sandbox.close());

  it('shows the trainer’s working directory as empty or absent', async () => {
    // Absent when the project lives under /tmp (the sandbox has its own /tmp), empty otherwise.
    const p = JSON.stringify(process.cwd());
    const r = await sandbox.run({ code: `import os\nprint(sorted(os.listdir(${p})) if os.path.isdir(${p}) else [])` });
    expect(r.status).toBe('ok');
    expect(r.stdout.trim()).toBe('[]');
  });

  it('cannot read a file of the project by its absolute path', async () => {
    const r = await sandbox.run({ code: `print(open(${JSON.stringify(`${process.cwd()}/package.json`)}).read()[:20])` });
    expect(r.status).toBe('error');
    expect(r.stderr).toMatch(/FileNotFoundError|PermissionError/);
  });
});
