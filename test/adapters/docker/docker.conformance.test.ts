import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerSandbox, type DockerSandbox } from '../../../adapters/docker/index.js';
import { sandboxConformance } from 'agentrl/testing/conformance';
import { TEST_BINDS, TEST_IMAGE, probeDocker, sandboxContainers } from './docker-env.js';

const probe = await probeDocker();

if (probe.ok) {
  let made: DockerSandbox | undefined;
  sandboxConformance(
    'docker',
    async () => {
      made = dockerSandbox({ image: TEST_IMAGE, binds: TEST_BINDS, poolSize: 2, timeoutMs: 10_000, memoryMb: 512, pidsLimit: 64 });
      await made.ready();
      return made;
    },
    { language: 'python', timeScale: 2, sessions: { memoryMb: 512 } },
  );
  describe('docker conformance cleanup', () => {
    afterAll(async () => {
      // Hazard: containers (killed, recycled or idle) that outlive close().
      if (made) expect(await sandboxContainers(new Docker(), `agentrl.pool=${made.poolId}`)).toEqual([]);
    });
    it('ran on a warm pool', () => expect(made?.name).toBe('docker'));
  });
} else {
  describe('sandbox conformance: docker', () => {
    it.skip(`SKIPPED: ${probe.reason}`, () => {});
  });
}
