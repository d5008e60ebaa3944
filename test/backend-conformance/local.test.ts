import { localBackend } from '../../src/backend/index.js';
import { CONFORMANCE_MODEL, describeBackendConformance } from './suite.js';

// The reference against itself: a fresh in-process backend must match a second one exactly (the suite's baseline).
describeBackendConformance({
  name: 'localBackend (in-process)',
  create: async () => localBackend(CONFORMANCE_MODEL),
  statePath: (p) => p,
});
