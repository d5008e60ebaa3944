import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, DEFAULT_BUDGETS, agentEnvironment, buildDatums, runGroup, type AgentEnvironment, type Example, type Trajectory } from 'agentrl';
import { scriptedSampler } from 'agentrl/testing';
import { localRenderer } from '../../helpers/local-renderer.js';
import { call } from './helpers.js';

const PY = '/usr/bin/python3';
const AGENT_PY = fileURLToPath(new URL('../../fixtures/agents/add_agent.py', import.meta.url));
const AGENTS_SDK = fileURLToPath(new URL('../../fixtures/agents/agents-sdk-agent.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const ex: Example = { id: 'sum', question: 'What is 2 + 40?', answer: '42' };
const envs: AgentEnvironment[] = [];
const track = (e: AgentEnvironment) => (envs.push(e), e);
afterAll(async () => {
  await Promise.all(envs.map((e) => e.close()));
});

async function toolModel() {
  const renderer = await localRenderer();
  const sampler = scriptedSampler({
    renderer,
    script: ({ prompt }) => {
      const seen = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)].map((m) => m[1]);
      return seen.length === 0 ? call('add', { a: 2, b: 40 }) : `The sum is \\boxed{${seen[0]}}`;
    },
  });
  return { renderer, sampler };
}

function expectMergedToolLoop(t: Trajectory) {
  expect(t.error?.message).toBeUndefined();
  expect(t.stopReason).toBe('answer');
  expect(t.finalText).toBe('The sum is \\boxed{42}');
  expect(t.turns).toHaveLength(2);
  const first = [...t.turns[0]!.promptTokens, ...t.turns[0]!.completionTokens];
  expect(t.turns[1]!.promptTokens.slice(0, first.length)).toEqual(first);
  expect(t.turns[0]!.observation?.map((m) => m.content)).toEqual(['42']);
  const { datums } = buildDatums([t], [1]);
  expect(datums).toHaveLength(1);
  const d = datums[0]!;
  expect(d.targetTokens.filter((_, i) => d.mask[i] === 1)).toEqual(t.turns.flatMap((turn) => turn.completionTokens));
}

/** Hazard: an agent program that is not JavaScript in the trainer's process (a Python script, a CLI) that cannot be trained. */
describe('agentEnvironment({ command }): agent programs out of process', () => {
  for (const wire of ['--chat', '--responses', '--anthropic']) {
    it(`a Python standard-library agent (${wire.slice(2)}) trains unchanged; one datum token for token`, async () => {
      const { renderer, sampler } = await toolModel();
      const env = track(agentEnvironment({ command: [PY, AGENT_PY, wire] }));
      const group = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 2 });
      for (const t of group) expectMergedToolLoop(t);
      expect(env.activeRollouts).toBe(0);
    });
  }

  it('an @openai/agents program on its default provider, configured only by OPENAI_BASE_URL / OPENAI_API_KEY', async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(agentEnvironment({ command: [process.execPath, AGENTS_SDK], cwd: REPO }));
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expectMergedToolLoop(t!);
  });
});

/** A Python program that makes one chat call, then runs `body` (with `os`, `json`, `sys` imported). */
const pyProgram = (body: string) =>
  [
    'import json, os, sys, urllib.request',
    'ex = sys.stdin.readline()',
    'req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(), headers={"authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "content-type": "application/json"})',
    'reply = json.loads(urllib.request.urlopen(req).read())["choices"][0]["message"]["content"]',
    body,
  ].join('\n');

/** Hazard: the trainer's secrets leaking to an agent program, a stuck program (or its children) outliving the rollout, or a crash with no clue why. */
describe('agentEnvironment({ command }): isolation, deadline and errors', () => {
  it("gets a minimal environment (never the trainer's variables), the example without its answer on stdin and in a file", async () => {
    const { renderer, sampler } = await toolModel();
    process.env.AGENTRL_TEST_SECRET_TOKEN = 'sk-do-not-leak';
    try {
      const env = track(
        agentEnvironment({
          command: [
            PY,
            '-c',
            pyProgram(
              'print(json.dumps({"env": dict(os.environ), "stdin": json.loads(ex), "file": json.load(open(os.environ["AGENTRL_EXAMPLE_FILE"])), "home": os.path.isdir(os.environ["HOME"])}))',
            ),
          ],
          env: { EXTRA: 'given' },
        }),
      );
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: { ...ex, meta: { level: 2 } } as Example, groupSize: 1 });
      const out = JSON.parse(t!.finalText) as { env: Record<string, string>; stdin: unknown; file: unknown; home: boolean };
      expect(out.env.AGENTRL_TEST_SECRET_TOKEN).toBeUndefined();
      expect(Object.values(out.env)).not.toContain('sk-do-not-leak');
      expect(Object.keys(out.env).sort()).toEqual(
        [
          'AGENTRL_ANSWER_FILE',
          'AGENTRL_EXAMPLE_FILE',
          'AGENTRL_MODEL',
          'AGENTRL_TRAJECTORY_ID',
          'ANTHROPIC_API_KEY',
          'ANTHROPIC_BASE_URL',
          'EXTRA',
          'HOME',
          'LANG',
          'OPENAI_API_KEY',
          'OPENAI_BASE_URL',
          'PATH',
          'TMPDIR',
        ].sort(),
      );
      expect(out.env.EXTRA).toBe('given');
      expect(out.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(out.env.ANTHROPIC_BASE_URL).toBe(out.env.OPENAI_BASE_URL!.slice(0, -3));
      expect(out.stdin).toEqual({ id: 'sum', question: 'What is 2 + 40?', meta: { level: 2 } });
      expect(out.file).toEqual(out.stdin);
      expect(out.home).toBe(true);
    } finally {
      delete process.env.AGENTRL_TEST_SECRET_TOKEN;
    }
  });

  it('reads the answer from AGENTRL_ANSWER_FILE when the program writes one (stdout is then free for logs)', async () => {
    const { renderer, sampler } = await toolModel();
    const env = track(
      agentEnvironment({
        command: [PY, '-c', pyProgram('print("log line 1\\nlog line 2")\nopen(os.environ["AGENTRL_ANSWER_FILE"], "w").write("  the answer \\n")')],
      }),
    );
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.error).toBeUndefined();
    expect(t!.finalText).toBe('the answer');
  });

  it('a program that exits non-zero fails its trajectory with the exit code and the tail of its stderr', async () => {
    const { renderer, sampler } = await toolModel();
    for (const [code, body] of [
      [3, 'sys.stderr.write("x" * 10000 + "\\nboom: bad config\\n"); sys.exit(3)'],
      [1, 'raise RuntimeError("the tool server is down")'],
    ] as const) {
      const env = track(agentEnvironment({ command: [PY, '-c', pyProgram(body)] }));
      const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
      expect(t!.stopReason).toBe('error');
      expect(t!.error?.stage).toBe('agent');
      expect(t!.error?.message).toContain(`exited with code ${code}`);
      expect(t!.error?.message).toMatch(/boom: bad config|the tool server is down/);
      expect(t!.error!.message.length).toBeLessThan(4300);
    }
    const missing = track(agentEnvironment({ command: ['/nonexistent/agent-binary'] }));
    const [t] = await runGroup({ sampler, renderer, env: missing, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(t!.error?.message).toContain('could not start');
  });

  it('kills the whole process tree at the deadline (a child the program spawned included)', async () => {
    const { renderer, sampler } = await toolModel();
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-subproc-test-'));
    const pidFile = join(dir, 'pids');
    const env = track(
      agentEnvironment({
        command: ['/bin/sh', '-c', 'sleep 300 & echo $! > "$PIDFILE"; sh -c "sleep 301" & echo $! >> "$PIDFILE"; echo $$ >> "$PIDFILE"; wait'],
        env: { PIDFILE: pidFile },
        timeoutMs: 1500,
      }),
    );
    const t0 = Date.now();
    const [t] = await runGroup({ sampler, renderer, env, budgets: DEFAULT_BUDGETS }, { example: ex, groupSize: 1 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(t!.error?.stage).toBe('timeout');
    await new Promise((r) => setTimeout(r, 200));
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('refuses bad options with a ConfigError naming the option', () => {
    const cases: [unknown, string][] = [
      [{ command: [] }, 'command'],
      [{ command: ['python3', 3] }, 'command'],
      [{ command: ['x'], run: async () => 'a' }, 'run'],
      [{}, 'run'],
      [{ command: ['x'], env: { A: 1 } }, 'env'],
      [{ run: async () => 'a', cwd: '/tmp' }, 'cwd'],
    ];
    for (const [opts, path] of cases) {
      let err: unknown;
      try {
        agentEnvironment(opts as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).issues.map((i) => i.path)).toContain(path);
    }
  });
});

/** True while `pid` runs (a zombie waiting to be reaped counts as ended). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
