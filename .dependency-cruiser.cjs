/**
 * The house's walls, checked in CI (`npm run check:architecture`), with no exceptions listed.
 *
 * Library layers under src/, lowest first; a module imports only its own layer or one below:
 *   0 vocabulary: errors, util, types, platform
 *   1 data, sandbox, chat, loss, http (the hardened HTTP layer)
 *   2 backend
 *   3 endpoint (OpenAI- and Anthropic-compatible routes over a sampler)
 *   4 env
 *   5 rollout
 *   6 reward
 *   7 eval
 *   8 trainer
 *   9 report, testing, otel, wandb
 *  10 the entry points (src/index.ts, src/internal.ts, src/browser/)
 * adapters/ sit beside the library (they may import it, never an application); apps/ sit above both and import only
 * the public entry points (agentrl, agentrl/internal, agentrl/serve, agentrl/adapters/*) and their own files.
 */
const LAYERS = [
  ['errors', 'util', 'types', 'platform'],
  ['data', 'sandbox', 'chat', 'loss', 'http'],
  ['backend'],
  ['endpoint'],
  ['env'],
  ['rollout'],
  ['reward'],
  ['eval'],
  ['trainer'],
  ['report', 'testing', 'otel', 'wandb'],
];
const folders = (layers) => `^src/(${layers.flat().join('|')})/`;

const layerRules = LAYERS.map((layer, i) => ({
  name: `layer-${i}-${layer.join('-')}`,
  comment: `src/{${layer.join(',')}} imports only its own layer or the ones below it`,
  severity: 'error',
  from: { path: folders([layer]) },
  to: { path: '^src/', pathNot: [folders(LAYERS.slice(0, i + 1))] },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no import cycles, type-only ones included', severity: 'error', from: {}, to: { circular: true } },
    ...layerRules,
    {
      name: 'library-not-above',
      comment: 'the library (src/) never imports an adapter or an application',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(adapters|apps)/' },
    },
    {
      name: 'adapters-not-apps',
      comment: 'an adapter never imports an application',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-use-entry-points',
      comment: 'an application imports the library and the adapters only through their public entry points',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^(src|adapters)/', pathNot: ['^src/(index|internal)\\.ts$', '^adapters/[^/]+/index\\.ts$'] },
    },
    {
      name: 'apps-apart',
      comment: 'one application reaches another only through its entry point (apps/serve/index.ts is agentrl/serve)',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: ['^apps/$1/', '^apps/serve/index\\.ts$'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
