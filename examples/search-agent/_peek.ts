// usage: node --import tsx /tmp/ex7/peek.ts <search|sql> <checkpoint> [k]
import { loadMathDataset, runGroup } from 'agentrl';
const which = process.argv[2]!;
const ck = process.argv[3]!;
const k = Number(process.argv[4] ?? 4);
const base = `/work/main/examples/${which === 'search' ? 'search-agent' : 'sql-agent'}`;
const cfg = await import(`${base}/config.js`);
const { makeBackend } = await import(`${base}/backend.js`);
const envMod = await import(`${base}/env.js`);
const b = makeBackend({ checkpoint: ck });
const env = which === 'search' ? envMod.searchEnv(await envMod.makeRetriever()) : envMod.sqlEnv(envMod.loadDatabase());
const ctx = { sampler: await b.saveWeightsForSampler(), renderer: await b.renderer(), env, budgets: cfg.BUDGETS, sampling: { temperature: 1, seed: 5 } };
const ex = await loadMathDataset(cfg.PATHS.test, { limit: k });
for (const e of ex) {
  const ts = await runGroup(ctx, e, 2);
  for (const t of ts) console.log(`--- ${e.question} [${e.answer}] stop=${t.stopReason}\n` + t.turns.map((u: any) => `A: ${u.text}` + (u.observation ? `\nO: ${u.observation.map((m: any) => m.content).join('|')}` : '')).join('\n'));
}
await env.close?.(); await b.close();
