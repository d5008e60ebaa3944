/**
 * Server figures under abuse, measured side by side in one run (issue 14 items 4 and 5):
 * 1. peak RSS of a server process while N connections each hold an unfinished body declared as
 *    8 MiB (PART MiB of it sent): the shared HTTP layer vs a plain node:http server that buffers bodies;
 * 2. retrieval server over a synthetic 5,000-passage corpus: 20,000 queries (refused), a full 256-query
 *    request, a 1-query request alone and during the full one, and `--copies` copies of a common word
 *    searched per occurrence (before) vs per distinct term (now).
 *
 * The per-occurrence search takes ~57 ms per copy here (3,000 copies: ~170 s), hence `--copies` (default 100).
 *
 *   node --import tsx bench/server.bench.ts [--connections 300] [--part-mib 1] [--copies 100]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import MiniSearch from 'minisearch';
import { bm25Retriever, createRetrievalServer } from '../src/env/search/index.js';

const { values } = parseArgs({
  options: { connections: { type: 'string', default: '300' }, 'part-mib': { type: 'string', default: '1' }, copies: { type: 'string', default: '100' } },
});
const N = Number(values.connections);
const part = Buffer.alloc(Number(values['part-mib']) * 1024 * 1024, 0x20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function holdBodies(mode: 'layer' | 'naive'): Promise<{ base: number; peak: number; refused: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./server-abuse-child.ts', import.meta.url)), mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.on('data', (d: Buffer) => /port (\d+)/.test(String(d)) && resolve(Number(/port (\d+)/.exec(String(d))![1]))),
  );
  await sleep(300);
  const base = rssMiB(child.pid!);
  let peak = base;
  let refused = 0;
  const socks: Socket[] = [];
  for (let i = 0; i < N; i++) {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.on('data', (d: Buffer) => String(d).startsWith('HTTP/1.1 503') && refused++);
    s.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n');
    s.write(part);
    socks.push(s);
    if (i % 20 === 19) peak = Math.max(peak, rssMiB(child.pid!));
  }
  const end = Date.now() + 15_000;
  while (Date.now() < end && socks.some((s) => !s.destroyed && s.writableLength > 0)) {
    peak = Math.max(peak, rssMiB(child.pid!));
    await sleep(100);
  }
  for (let i = 0; i < 5; i++) {
    peak = Math.max(peak, rssMiB(child.pid!));
    await sleep(100);
  }
  for (const s of socks) s.destroy();
  child.kill('SIGKILL');
  return { base, peak, refused };
}

console.log(`== ${N} connections, each declaring an 8 MiB body and sending ${part.length >> 20} MiB of it, then stalling`);
const naive = await holdBodies('naive');
const layer = await holdBodies('layer');
console.log(
  `plain node:http   : RSS ${naive.base.toFixed(0)} → peak ${naive.peak.toFixed(0)} MiB (+${(naive.peak - naive.base).toFixed(0)}), 503s ${naive.refused}`,
);
console.log(
  `shared HTTP layer : RSS ${layer.base.toFixed(0)} → peak ${layer.peak.toFixed(0)} MiB (+${(layer.peak - layer.base).toFixed(0)}), 503s ${layer.refused}`,
);
console.log(`growth ratio plain/layer: ${((naive.peak - naive.base) / Math.max(1, layer.peak - layer.base)).toFixed(1)}×`);

console.log('\n== retrieval server, 5,000 synthetic passages, bm25');
const words = 'the of and to in a is was for on as with by he at from his an were are which this be or has had'.split(' ');
const corpus = Array.from({ length: 5000 }, (_, i) => ({
  id: String(i),
  title: `Doc ${i}`,
  contents: Array.from({ length: 60 }, (_, j) => (j % 3 === 0 ? `w${(i * 7 + j) % 997}` : words[(i + j) % words.length])).join(' '),
}));
const srv = createRetrievalServer(bm25Retriever(corpus));
const url = await srv.listen();
const post = async (body: unknown) => {
  const t0 = performance.now();
  const res = await fetch(`${url}/retrieve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
};
const q = (i: number) => `w${i % 997} the of w${(i * 13) % 997}`;
await post({ queries: [q(0)], topk: 3 }); // warm
const many = await post({ queries: Array.from({ length: 20_000 }, (_, i) => q(i)), topk: 3 });
console.log(`20,000 queries, topk 3          : HTTP ${many.status} in ${many.ms.toFixed(0)} ms`);
const alone = await post({ queries: [q(1)], topk: 3 });
console.log(`1 query alone                   : HTTP ${alone.status} in ${alone.ms.toFixed(1)} ms`);
const fullP = post({ queries: Array.from({ length: 256 }, (_, i) => q(i)), topk: 3 });
await sleep(5);
const during = await post({ queries: [q(2)], topk: 3 });
const full = await fullP;
console.log(`256 queries (the maximum)       : HTTP ${full.status} in ${full.ms.toFixed(0)} ms`);
console.log(
  `1 query during the 256          : HTTP ${during.status} in ${during.ms.toFixed(1)} ms (answered ${during.ms < full.ms ? 'before' : 'after'} the big one)`,
);
await srv.close();
const copies = Number(values.copies);
const flood = Array.from({ length: copies }, () => 'the').join(' ');
const plain = new MiniSearch<(typeof corpus)[number]>({
  idField: 'id',
  fields: ['title', 'contents'],
  searchOptions: { boost: { title: 2 }, combineWith: 'OR' },
});
plain.addAll(corpus);
let t0 = performance.now();
plain.search(flood);
const perOccurrence = performance.now() - t0;
const r = bm25Retriever(corpus);
t0 = performance.now();
await r.search([flood], 3);
const perTerm = performance.now() - t0;
console.log(
  `${copies} × "the", one query         : per occurrence ${perOccurrence.toFixed(0)} ms, per distinct term ${perTerm.toFixed(1)} ms (${(perOccurrence / perTerm).toFixed(0)}× less)`,
);
