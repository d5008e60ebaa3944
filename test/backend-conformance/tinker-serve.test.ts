import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tinkerBackend } from '../../src/backend/tinker/index.js';
import { createServeApp, type ServeApp } from '../../apps/serve/tinker/index.js';
import { CONFORMANCE_MODEL, describeBackendConformance } from './suite.js';

const LOCAL_MODEL_DIR = fileURLToPath(new URL('../../assets/local-model', import.meta.url));
let serve: ServeApp | undefined;
let url: Promise<string> | undefined;

// tinkerBackend → agentrl serve over real HTTP on loopback (the server in this process, bound to 127.0.0.1:0).
describeBackendConformance({
  name: 'tinkerBackend → agentrl serve (loopback HTTP)',
  async create() {
    url ??= (async () => {
      const m = CONFORMANCE_MODEL;
      serve = createServeApp({ port: 0, model: { layers: m.layers!, dModel: m.dModel!, heads: m.heads!, contextTokens: m.contextTokens!, seed: m.seed! } });
      return serve.listen();
    })();
    return tinkerBackend({
      baseUrl: await url,
      baseModel: 'agentrl/local',
      renderer: LOCAL_MODEL_DIR,
      maxContextTokens: CONFORMANCE_MODEL.contextTokens!,
      retry: { tryAgainDelayMs: 0 },
    });
  },
  statePath: (p) => join(p, 'tinker'),
  async teardown() {
    await serve?.close();
  },
});
