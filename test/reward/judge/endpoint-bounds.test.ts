import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, judgeReward, type Example, type Trajectory } from 'agentrl';
import { drip, flood, hostileServer, redirect, silent, type HostileServer } from '../../util/hostile-server.js';

// Issue 38 §4: the endpoint judge gets the bounds of every agentrl client. Hazards: `fetch` follows a 307 to another
// origin, which receives the `x-api-key` header and the trajectory and whose score counts; a 300 MB answer is read
// whole into memory; an answer that never ends holds the judgement until its outer deadline.

const ex: Example = { id: 'e', question: 'Name a prime number greater than 10.', answer: '' };
const traj = (finalText: string): Trajectory => ({
  id: 'e/0',
  example: ex,
  groupIndex: 0,
  messages: [],
  turns: [
    {
      promptTokens: [1],
      completionTokens: [2],
      logprobs: [-1],
      text: finalText,
      stopReason: 'stop',
      action: { kind: 'answer', content: finalText, raw: finalText },
    },
  ],
  stopReason: 'answer',
  toolCalls: 0,
  finalText,
});
const verdict = (score: number) => JSON.stringify({ choices: [{ message: { role: 'assistant', content: `{"score": ${score}}` } }] });

let evil: HostileServer;
let other: HostileServer;
beforeAll(async () => {
  [evil, other] = await Promise.all([hostileServer(), hostileServer()]);
  other.behaviour = (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end(verdict(1));
});
afterAll(async () => {
  await Promise.all([evil?.close(), other?.close()]);
});

async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

describe('endpoint judge: redirects are refused', () => {
  it.each([307, 308, 301, 302, 303])('a %i to another loopback port: the target receives nothing, the sample is dropped, not retried', async (status) => {
    evil.behaviour = redirect(status, `${other.url}/v1/chat/completions`);
    const before = evil.requests.length;
    const j = judgeReward({
      judge: { baseURL: `${evil.url}/v1`, model: 'm', apiKey: 'sk-secret', headers: { 'x-api-key': 'custom-secret' } },
      rubric: 'r',
      mode: 'single',
      retries: 2,
    });
    const r = await j.reward(traj('It is 15. SECRET-TRAJECTORY'), ex);
    expect(r).toMatchObject({ drop: true, failure: 'reward_error', reward: 0 });
    expect(r.cause).toMatch(new RegExp(`HTTP ${status} redirecting to ${other.url}`));
    expect(other.requests).toHaveLength(0);
    expect(evil.requests.length - before).toBe(1);
    expect(evil.requests.at(-1)!.headers['x-api-key']).toBe('custom-secret'); // it did go to the configured URL
  });
});

describe('endpoint judge: the answer size is capped while streaming', () => {
  it('a 300 MB answer is refused after about maxResponseBytes, with bounded memory; not retried', async () => {
    const TOTAL = 300 * 2 ** 20;
    let sent = 0;
    let closedEarly = false;
    evil.behaviour = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(2 ** 20, 0x20);
      const pump = () => {
        while (!res.destroyed && sent < TOTAL) {
          sent += chunk.byteLength;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      res.on('close', () => (closedEarly = sent < TOTAL));
      res.write('{"choices": [{"message": {"content": "');
      pump();
    };
    const before = evil.requests.length;
    const heap0 = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
    const j = judgeReward({
      judge: { baseURL: `${evil.url}/v1`, model: 'm', maxResponseBytes: 2 * 2 ** 20 },
      rubric: 'r',
      mode: 'single',
      retries: 2,
      timeoutMs: 30_000,
    });
    const { value: r, ms } = await timed(() => j.reward(traj('x'), ex));
    expect(r).toMatchObject({ drop: true, failure: 'reward_error' });
    expect(r.cause).toMatch(/larger than the limit of 2097152 bytes/);
    expect(ms).toBeLessThan(10_000);
    const grown = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed - heap0;
    expect(grown).toBeLessThan(100 * 2 ** 20);
    await new Promise((r) => setTimeout(r, 100));
    expect(closedEarly).toBe(true);
    expect(sent).toBeLessThan(64 * 2 ** 20); // the client stopped reading: the server could not push the rest
    expect(evil.requests.length - before).toBe(1);
  });

  it('an endless answer and a lying Content-Length are refused under the default limit (4 MiB)', async () => {
    for (const b of [flood(256 * 1024), flood(1024, 300 * 2 ** 20)]) {
      evil.behaviour = b;
      const j = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm' }, rubric: 'r', mode: 'single', retries: 0, timeoutMs: 30_000 });
      const r = await j.reward(traj('x'), ex);
      expect(r.cause).toMatch(/larger than the limit of 4194304 bytes/);
    }
  });
});

describe('endpoint judge: a total deadline', () => {
  it('an answer dripped forever, and headers that never come, end at the request deadline (each attempt), then the sample is dropped', async () => {
    for (const b of [drip(20), silent]) {
      evil.behaviour = b;
      const before = evil.requests.length;
      const j = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm', timeoutMs: 300 }, rubric: 'r', mode: 'single', retries: 1, timeoutMs: 30_000 });
      const { value: r, ms } = await timed(() => j.reward(traj('x'), ex));
      expect(r).toMatchObject({ drop: true, failure: 'reward_error' });
      expect(r.cause).toMatch(/no complete answer within 300 ms/);
      expect(ms).toBeLessThan(5_000);
      expect(evil.requests.length - before).toBe(2); // a transport fault is retried within the judgement
    }
  });

  it('without a request deadline of its own, the judgement’s timeoutMs ends a never-ending answer', async () => {
    evil.behaviour = drip(20);
    const j = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm' }, rubric: 'r', mode: 'single', timeoutMs: 400 });
    const { value: r, ms } = await timed(() => j.reward(traj('x'), ex));
    expect(r.cause).toMatch(/\(timeout\): no judgement within 400 ms/);
    expect(ms).toBeLessThan(5_000);
  });

  it('a well-behaved endpoint still scores; bad bounds are a ConfigError naming the option', async () => {
    evil.behaviour = (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end(verdict(0.75));
    const j = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm', timeoutMs: 5_000, maxResponseBytes: 4096 }, rubric: 'r', mode: 'single' });
    expect(await j.reward(traj('It is 17.'), ex)).toMatchObject({ reward: 0.75, correct: true });
    for (const bad of [{ maxResponseBytes: 0 }, { timeoutMs: -1 }, { maxResponseBytes: 1.5 }, { timeoutMs: '5s' }]) {
      expect(() => judgeReward({ judge: { baseURL: evil.url, model: 'm', ...(bad as object) }, rubric: 'r', mode: 'single' })).toThrow(ConfigError);
      expect(() => judgeReward({ judge: { baseURL: evil.url, model: 'm', ...(bad as object) }, rubric: 'r', mode: 'single' })).toThrow(
        /judge\.(maxResponseBytes|timeoutMs)/,
      );
    }
  });
});

describe('endpoint judge: what the answer holds', () => {
  it('`content: null` (reasoning only) is a missing verdict, retried; a body without a message is not retried', async () => {
    let n = 0;
    evil.behaviour = (_q, s) =>
      s
        .writeHead(200, { 'content-type': 'application/json' })
        .end(n++ === 0 ? JSON.stringify({ choices: [{ message: { content: null, reasoning_content: '{"score": 1}' } }] }) : verdict(0.2));
    const j = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm' }, rubric: 'r', mode: 'single', retries: 1 });
    expect(await j.reward(traj('x'), ex)).toMatchObject({ reward: 0.2 });
    expect(j.stats()).toMatchObject({ calls: 2, missingVerdicts: 1 });

    evil.behaviour = (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": []}');
    const k = judgeReward({ judge: { baseURL: `${evil.url}/v1`, model: 'm' }, rubric: 'r', mode: 'single', retries: 2 });
    const r = await k.reward(traj('x'), ex);
    expect(r.cause).toMatch(/call_failed.*without a message/);
    expect(k.stats().calls).toBe(1);
  });
});
