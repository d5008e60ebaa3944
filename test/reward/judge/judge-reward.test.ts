import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, judgeReward, type Example, type RewardResult, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { createServeApp, type ServeApp } from '../../../apps/serve/tinker/index.js';
import { openaiServePlugin } from '../../../apps/serve/openai-plugin.js';
import { localRenderer } from '../../helpers/local-renderer.js';
import { TINY } from '../../backend/helpers.js';
import { serveV1 } from '../../serve/openai/helpers.js';

const ex: Example = { id: 'e', question: 'Name a prime number greater than 10.', answer: '' };
const traj = (g: number, finalText: string, stopReason: Trajectory['stopReason'] = 'answer'): Trajectory => ({
  id: `e/${g}`,
  example: ex,
  groupIndex: g,
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
  stopReason,
  toolCalls: 0,
  finalText,
});

/** A scripted judge: replies are produced by `reply(call, prompt)`; counts calls. */
async function scriptedJudge(reply: (call: number, prompt: string) => string) {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({ renderer, script: ({ call, prompt }) => reply(call, prompt) });
  return { judge: { sampler, renderer, name: 'scripted' }, sampler };
}

/** Scores each member of a group the way the Trainer does: per-trajectory reward, then the group reward added. */
async function scoreGroup(j: ReturnType<typeof judgeReward>, group: Trajectory[]): Promise<RewardResult[] | Error> {
  const rewards_G = await Promise.all(group.map((t) => j.reward(t, ex)));
  try {
    const bonus = await j.groupReward!({ example: ex, trajectories_G: group, rewards_G });
    return rewards_G.map((r, g) => ({ ...r, reward: r.reward + bonus[g]! }));
  } catch (e) {
    return e as Error;
  }
}

/** Hazard: a judge's malformed, slow or failing output that rewards garbage, crashes the run, or is paid for twice. */
describe('judgeReward with a scripted judge', () => {
  it('single mode: parses the score (fenced JSON too), caches by content, and scores invalid endings 0 unasked', async () => {
    const { judge, sampler } = await scriptedJudge((_c, prompt) =>
      prompt.includes('17') ? '```json\n{"explanation": "17 is prime", "score": 0.9}\n```' : '{"score": 0.2}',
    );
    const j = judgeReward({ judge, rubric: 'Correct primes score high.', mode: 'single' });
    expect(await j.reward(traj(0, 'It is 17.'), ex)).toMatchObject({ reward: 0.9, correct: true, validFormat: true });
    expect(await j.reward(traj(1, 'It is 15.'), ex)).toMatchObject({ reward: 0.2, correct: false });
    expect(await j.reward(traj(2, 'It is 17.'), ex)).toMatchObject({ reward: 0.9 }); // same content: cached
    expect(await j.reward(traj(3, 'It is 17', 'invalid'), ex)).toMatchObject({ reward: 0, validFormat: false, failure: 'invalid_format' });
    expect(sampler.calls).toBe(2);
    expect(j.stats()).toMatchObject({ calls: 2, cacheHits: 1, failures: 0 });
  });

  it('single mode: retries a malformed reply with the problem fed back; a judge that never complies drops the sample', async () => {
    const prompts: string[] = [];
    const { judge } = await scriptedJudge((call, prompt) => {
      prompts.push(prompt);
      return call === 0 ? 'I would say 0.8' : call === 1 ? '{"score": 1.7}' : '{"score": 0.8}';
    });
    const j = judgeReward({ judge, rubric: 'r', mode: 'single', retries: 2 });
    expect(await j.reward(traj(0, 'a'), ex)).toMatchObject({ reward: 0.8 });
    expect(prompts[1]).toMatch(/could not be used: the reply holds no complete JSON object/);
    expect(prompts[2]).toMatch(/score: Too big/i);

    const { judge: stubborn } = await scriptedJudge(() => 'no');
    const k = judgeReward({ judge: stubborn, rubric: 'r', mode: 'single', retries: 1 });
    const r = await k.reward(traj(0, 'a'), ex);
    expect(r).toMatchObject({ drop: true, failure: 'reward_error' });
    expect(r.cause).toMatch(/judge failed after 2 attempt/);
    expect(k.stats()).toMatchObject({ calls: 2, retries: 1, failures: 1 });
    expect(await k.reward(traj(0, 'a'), ex)).toMatchObject({ drop: true }); // failures are not cached
    expect(k.stats().calls).toBe(4);
  });

  it('fails a judgement that does not answer within timeoutMs', async () => {
    const renderer = await localRenderer();
    const hang = { sampler: { sample: () => new Promise<never>(() => {}), computeLogprobs: async () => [] }, renderer };
    const j = judgeReward({ judge: hang, rubric: 'r', mode: 'single', timeoutMs: 200 });
    const t0 = Date.now();
    const r = await j.reward(traj(0, 'a'), ex);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.cause).toMatch(/no judgement within 200 ms/);
  });

  it('group mode: ranks the valid members in one call, normalised to [0, 1]; invalid members get 0 and are not shown', async () => {
    let shown = '';
    const { judge, sampler } = await scriptedJudge((_c, prompt) => {
      shown = prompt;
      return JSON.stringify({
        scores: [
          { id: '1', score: 0.9, explanation: 'prime' },
          { id: '2', score: 0.3 },
          { id: '4', score: 0.5 },
        ],
      });
    });
    const j = judgeReward({ judge, rubric: 'r', mode: 'group' });
    const group = [traj(0, 'It is 17.'), traj(1, 'It is 15.'), traj(2, 'It is 13', 'max_turn_tokens'), traj(3, 'It is 11, I think.')];
    const scored = await scoreGroup(j, group);
    expect(scored).not.toBeInstanceOf(Error);
    expect((scored as RewardResult[]).map((r) => +r.reward.toFixed(3))).toEqual([1, 0, 0, 0.333]);
    expect(shown).toContain('<trajectory id="4">');
    expect(shown).not.toContain('It is 13');
    expect(sampler.calls).toBe(1);
  });

  it('group mode: retries when ids are missing, and a failed group judgement drops the group (throws to the Trainer)', async () => {
    const { judge } = await scriptedJudge((call) =>
      call === 0 ? '{"scores": [{"id": "1", "score": 0.5}]}' : '{"scores": [{"id": "1", "score": 0.5}, {"id": "2", "score": 0.7}]}',
    );
    const j = judgeReward({ judge, rubric: 'r', mode: 'group', normalize: 'none' });
    const scored = (await scoreGroup(j, [traj(0, 'a'), traj(1, 'b')])) as RewardResult[];
    expect(scored.map((r) => r.reward)).toEqual([0.5, 0.7]);
    expect(j.stats().retries).toBe(1);
    const { judge: bad } = await scriptedJudge(() => '{"scores": []}');
    const k = judgeReward({ judge: bad, rubric: 'r', mode: 'group', retries: 0 });
    const err = await scoreGroup(k, [traj(0, 'a'), traj(1, 'b')]);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toMatch(/missing 1, 2/);
    expect(k.stats().failures).toBe(2);
  });

  it('rejects bad options', () => {
    expect(() => judgeReward({ judge: {} as never, rubric: '', mode: 'pairs' as never, retries: -1 })).toThrow(ConfigError);
  });
});

describe("judgeReward against agentrl serve's /v1", () => {
  let serve: ServeApp;
  let base: string;
  beforeAll(async () => {
    serve = createServeApp({
      port: 0,
      model: { layers: TINY.layers!, dModel: TINY.dModel!, heads: TINY.heads!, contextTokens: 1024, seed: TINY.seed! },
      plugins: [openaiServePlugin],
    });
    base = `${await serve.listen()}/v1`;
  });
  afterAll(async () => {
    await serve?.close();
  });

  it('an untrained served judge never writes valid JSON: the sample is dropped after the retries, nothing throws', async () => {
    const j = judgeReward({ judge: { baseURL: base, model: 'agentrl/local' }, rubric: 'r', mode: 'single', retries: 1, maxTokens: 24 });
    const r = await j.reward(traj(0, 'It is 17.'), ex);
    expect(r).toMatchObject({ drop: true, failure: 'reward_error' });
    expect(r.cause).toMatch(/JSON|score/); // it answered, but nothing usable
    expect(j.stats().calls).toBe(2);
  });

  it('a wrong model name is a failed judgement with the endpoint’s 404 in the cause', async () => {
    const j = judgeReward({ judge: { baseURL: base, model: 'nope' }, rubric: 'r', mode: 'single', retries: 0 });
    expect((await j.reward(traj(0, 'x'), ex)).cause).toMatch(/404/);
  });

  it('the /v1 surface over a scripted model: group judgement end to end over HTTP with a key', async () => {
    const renderer = await localRenderer();
    const sampler = scriptedSampler({ renderer, script: () => '{"scores": [{"id": "1", "score": 0.2}, {"id": "2", "score": 0.6}]}' });
    const { server, baseUrl } = await serveV1({ sampler, renderer, modelName: 'judge' }, { apiKey: 'k3y' });
    try {
      const j = judgeReward({ judge: { baseURL: baseUrl, model: 'judge', apiKey: 'k3y' }, rubric: 'r', mode: 'group' });
      const scored = (await scoreGroup(j, [traj(0, 'a'), traj(1, 'b')])) as RewardResult[];
      expect(scored.map((r) => r.reward)).toEqual([0, 1]);
    } finally {
      await server.close();
    }
  });
});
