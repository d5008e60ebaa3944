import { afterAll, describe, expect, it } from 'vitest';
import { localSandbox } from 'agentrl/adapters/local';

/** Hazard: model code reading the trainer's project (data, checkpoints, keys in config files). */
describe('local sandbox hides the trainer’s files', () => {
  const sandbox = localSandbox({ workers: 1, timeoutMs: 10_000 });
  afterAll(() => sandbox.close());

  it('shows the trainer’s working directory as empty', async () => {
    const r = await sandbox.run({ code: `import os\nprint(sorted(os.listdir(${JSON.stringify(process.cwd())})))` });
    expect(r.status).toBe('ok');
    expect(r.stdout.trim()).toBe('[]');
  });

  it('cannot read a file of the project by its absolute path', async () => {
    const r = await sandbox.run({ code: `print(open(${JSON.stringify(`${process.cwd()}/package.json`)}).read()[:20])` });
    expect(r.status).toBe('error');
    expect(r.stderr).toMatch(/FileNotFoundError|PermissionError/);
  });
});
