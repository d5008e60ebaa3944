import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';

/** Image the Docker tests use; built by `scripts/docker-image.sh` when missing. */
export const TEST_IMAGE = process.env['AGENTRL_DOCKER_IMAGE'] ?? 'agentrl-sandbox:local';
/** Bind mounts the local test image needs (Python, numpy, sympy come from the host's /usr). */
export const TEST_BINDS: readonly string[] = process.env['AGENTRL_DOCKER_IMAGE'] ? [] : ['/usr:/usr:ro'];

/**
 * Whether Docker tests can run here: a daemon answers `ping` (honours DOCKER_HOST) and the test
 * image exists or can be built. Tests SKIP, with `reason` in their title, only when this fails.
 */
export async function probeDocker(): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }> {
  const docker = new Docker();
  try {
    await Promise.race([docker.ping(), new Promise((_, rej) => setTimeout(() => rej(new Error('ping timed out')), 5000))]);
  } catch (e) {
    return {
      ok: false,
      reason: `no docker daemon reachable (${e instanceof Error ? e.message : String(e)}; DOCKER_HOST=${process.env['DOCKER_HOST'] ?? 'unset'})`,
    };
  }
  try {
    await docker.getImage(TEST_IMAGE).inspect();
    return { ok: true };
  } catch {
    /* build it below */
  }
  if (process.env['AGENTRL_DOCKER_IMAGE']) return { ok: false, reason: `image ${TEST_IMAGE} not found` };
  try {
    const script = fileURLToPath(new URL('../../../scripts/docker-image.sh', import.meta.url));
    execFileSync('bash', [script, TEST_IMAGE], { stdio: 'pipe', timeout: 120_000 });
    return { ok: true };
  } catch (e) {
    const err = e as { stderr?: Buffer; message?: string };
    // A daemon is up, so a failed build is a real failure, not a reason to skip.
    throw new Error(`scripts/docker-image.sh failed: ${err.stderr?.toString() ?? err.message}`);
  }
}

/** Ids of containers (any state) created by agentrl's Docker sandbox for `poolId`-less checks. */
export async function sandboxContainers(docker: Docker, label = 'agentrl.sandbox'): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [label] } });
  return list.map((c) => c.Id);
}
