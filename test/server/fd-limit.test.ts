import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { closed, rawConnect, send, sleep } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/fd-limit-server.ts', import.meta.url));

/** Starts the fixture server under `ulimit -n nofile`; resolves once it printed its port. */
async function startLimited(nofile: number, headroom: number) {
  const child = spawn('bash', ['-c', `ulimit -n ${nofile} && exec "${process.execPath}" --import tsx "${SCRIPT}" ${headroom}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const end = Date.now() + 30_000;
  while (!/ready \d+ \d+/.test(out) && child.exitCode === null && Date.now() < end) await sleep(50);
  const m = /ready (\d+) (\d+)/.exec(out);
  if (!m) throw new Error(`fixture did not start: ${out}`);
  return { child, url: `http://127.0.0.1:${m[1]}`, maxConnections: Number(m[2]), output: () => out };
}

describe('createHttpServer at the file-descriptor limit', () => {
  it('keeps headroom below RLIMIT_NOFILE: with 300 stalled connections against a 200-fd process, work that opens files still runs and the ping answers', async () => {
    // Hazard: at the file-descriptor limit even the ping stopped answering, and any work needing a descriptor failed.
    const { child, url, maxConnections, output } = await startLimited(200, 64);
    try {
      expect(maxConnections).toBe(136);
      // A client connected before the flood, on a keep-alive connection.
      const mine = await rawConnect(url);
      let got = '';
      mine.on('data', (d: Buffer) => (got += d.toString()));
      mine.write('GET /open HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      while (!got.includes('opened')) await sleep(10);
      const hogs = [];
      for (let i = 0; i < 300; i++) {
        try {
          const s = await rawConnect(url);
          s.on('error', () => {});
          s.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never end
          hogs.push(s);
        } catch {
          /* refused or reset: fine */
        }
      }
      const ends = hogs.map(closed);
      got = '';
      mine.write('GET /open HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const t = Date.now();
      while (!/\r\n\r\n\S/.test(got) && Date.now() - t < 3000) await sleep(10);
      expect(got).toMatch(/^HTTP\/1\.1 200[\s\S]*opened/);
      mine.destroy();
      let answered = false;
      for (let i = 0; i < 300 && !answered; i++) {
        try {
          answered = (await send(url, { path: '/ping' })).text === 'pong';
        } catch {
          await sleep(50);
        }
      }
      expect(answered).toBe(true);
      await Promise.all(ends);
      expect(child.exitCode).toBe(null);
      expect(output()).not.toMatch(/EMFILE|Error/);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
