import { describe, expect, it } from 'vitest';
import { remoteSandbox } from '../../../adapters/remote/index.js';
import { SandboxClosedError, SessionsNotSupportedError } from '../../../src/errors/index.js';

describe('remoteSandbox sessions', () => {
  it('says it has none and rejects openSession with a typed error (SandboxClosedError once closed)', async () => {
    const sb = remoteSandbox({ url: 'http://127.0.0.1:9' });
    expect(sb.supportsSessions).toBe(false);
    const err = await sb.openSession().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionsNotSupportedError);
    expect((err as SessionsNotSupportedError).code).toBe('SANDBOX_SESSIONS_UNSUPPORTED');
    await sb.close();
    await expect(sb.openSession()).rejects.toBeInstanceOf(SandboxClosedError);
  });
});
