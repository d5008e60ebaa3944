import { describe, expect, it } from 'vitest';
import {
  codeInterpreter,
  formatExecObservation,
  truncateTail,
  TRUNCATION_MARKER,
  CODE_INTERPRETER_SESSION_SYSTEM_PROMPT,
  SESSION_RESET_NOTE,
  ConfigError,
  type ExecResult,
  type Sandbox,
  type ToolContext,
} from 'agentrl/internal';
import { fakeSandbox } from 'agentrl/testing';

const base: ExecResult = { status: 'ok', exitCode: 0, stdout: '', stderr: '', truncated: false, wallMs: 1 };
const chars = (s: string) => s.length;

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    trajectoryId: 'e/0',
    groupIndex: 0,
    example: { id: 'e', question: 'q', answer: '1' },
    toolCalls: 0,
    maxToolResponseTokens: 1000,
    countTokens: chars,
    signal: new AbortController().signal,
    state: new Map(),
    ...over,
  };
}
const toolAction = (code: string) => {
  const call = { type: 'function' as const, function: { name: 'code_interpreter', arguments: { code } } };
  return { kind: 'tool' as const, content: '', raw: '', call, calls: [call] };
};

describe('formatExecObservation (seed format_tool_content)', () => {
  it('returns stdout on success, even when empty', () => {
    expect(formatExecObservation({ ...base, stdout: '42\n' }, 5000)).toBe('42\n');
    expect(formatExecObservation(base, 5000)).toBe('');
  });
  it('returns stderr on failure and the exit code when both streams are empty', () => {
    expect(formatExecObservation({ ...base, status: 'error', exitCode: 1, stderr: 'Traceback…\nZeroDivisionError' }, 5000)).toMatch(/ZeroDivisionError/);
    expect(formatExecObservation({ ...base, status: 'error', exitCode: 3 }, 5000)).toBe('Error: process exited with code 3.');
  });
  it('reports a timeout with the limit in seconds', () => {
    expect(formatExecObservation({ ...base, status: 'timeout', exitCode: null }, 5000)).toBe('Error: execution timed out after 5 seconds.');
  });
  it('turns a sandbox fault into an observation', () => {
    expect(formatExecObservation({ ...base, status: 'sandbox_error', exitCode: null, stderr: 'worker died' }, 5000)).toMatch(/sandbox failed.*worker died/);
  });
});

describe('truncateTail', () => {
  it('keeps short text as is', () => expect(truncateTail('abc', 10, chars)).toBe('abc'));
  it('keeps the tail (where tracebacks end) and marks the cut, within budget', () => {
    const text = 'line\n'.repeat(100) + 'FINAL';
    const out = truncateTail(text, 50, chars);
    expect(out.startsWith(TRUNCATION_MARKER)).toBe(true);
    expect(out.endsWith('FINAL')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(50);
  });
});

describe('codeInterpreter', () => {
  it('runs tool calls in the sandbox with the per-call time limit and truncates the observation', async () => {
    const sandbox = fakeSandbox(() => ({ stdout: 'x'.repeat(500) + 'END' }));
    const env = codeInterpreter({ sandbox, timeoutMs: 1234 });
    const out = await env.step(toolAction('print(1)'), ctx({ maxToolResponseTokens: 40 }));
    expect(sandbox.requests).toEqual([{ code: 'print(1)', timeoutMs: 1234 }]);
    expect(out.done).toBe(false);
    if (!out.done) {
      expect(out.observation[0]!.role).toBe('tool');
      expect(out.observation[0]!.content.length).toBeLessThanOrEqual(40);
      expect(out.observation[0]!.content.endsWith('END')).toBe(true);
    }
  });
  it('turns a throwing sandbox into a sandbox_error observation (never a crash)', async () => {
    const env = codeInterpreter({
      sandbox: {
        name: 'boom',
        run: async () => {
          throw new Error('connection reset');
        },
        close: async () => {},
      },
    });
    const out = await env.step(toolAction('print(1)'), ctx());
    expect(out).toMatchObject({ done: false, exec: { status: 'sandbox_error' } });
  });
  it('ends the episode on an answer', async () => {
    const env = codeInterpreter({ sandbox: fakeSandbox() });
    expect(await env.step({ kind: 'answer', content: '\\boxed{1}', raw: '' }, ctx())).toEqual({ done: true, reason: 'answer' });
  });
  it('opens with the system prompt and the question', () => {
    const env = codeInterpreter({ sandbox: fakeSandbox() });
    const msgs = env.initialMessages({ id: 'a', question: 'What is 6*7?', answer: '42' });
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1]!.content).toBe('What is 6*7?');
    expect(codeInterpreter({ sandbox: fakeSandbox(), systemPrompt: null }).initialMessages({ id: 'a', question: 'q', answer: '' }).length).toBe(1);
  });
});

/** A sandbox whose sessions keep a counter (state) and record opens and closes. */
function countingSessions() {
  const log: string[] = [];
  let n = 0;
  const sandbox: Sandbox = {
    name: 'counting',
    supportsSessions: true,
    run: async () => base,
    close: async () => {},
    openSession: async () => {
      const id = ++n;
      let calls = 0;
      log.push(`open ${id}`);
      return {
        run: async (req) => {
          calls++;
          log.push(`run ${id} ${req.code}`);
          return { ...base, stdout: `${id}:${calls}`, ...(req.code === 'reset' ? { sessionReset: true } : {}) };
        },
        close: async () => {
          log.push(`close ${id}`);
        },
      };
    },
  };
  return { sandbox, log };
}

describe("codeInterpreter({ session: 'trajectory' })", () => {
  it('keeps one session per trajectory and closes it when the trajectory ends', async () => {
    const { sandbox, log } = countingSessions();
    const env = codeInterpreter({ sandbox, session: 'trajectory' });
    const a = ctx();
    const b = ctx({ trajectoryId: 'e/1', groupIndex: 1 });
    const outs = [await env.step(toolAction('x=1'), a), await env.step(toolAction('y=1'), b), await env.step(toolAction('x+=1'), a)];
    expect(outs.map((o) => (o.done ? '' : o.observation[0]!.content))).toEqual(['1:1', '2:1', '1:2']);
    await env.endTrajectory!(a);
    await env.endTrajectory!(b);
    await env.endTrajectory!(b); // idempotent
    expect(log).toEqual(['open 1', 'run 1 x=1', 'open 2', 'run 2 y=1', 'run 1 x+=1', 'close 1', 'close 2']);
  });
  it('says that state persists, and notes a reset session in the observation', async () => {
    const { sandbox } = countingSessions();
    const env = codeInterpreter({ sandbox, session: 'trajectory' });
    const sys = env.initialMessages({ id: 'a', question: 'q', answer: '' })[0]!.content;
    expect(sys).toBe(CODE_INTERPRETER_SESSION_SYSTEM_PROMPT);
    expect(sys).toMatch(/notebook/);
    expect(sys).not.toMatch(/starts from scratch/);
    expect(env.tools[0]!.function.description).toMatch(/kept/);
    const out = await env.step(toolAction('reset'), ctx());
    expect(out.done ? '' : out.observation[0]!.content).toBe(`${SESSION_RESET_NOTE}1:1`);
  });
  it('refuses a sandbox without sessions, and stays per call by default', () => {
    expect(() => codeInterpreter({ sandbox: fakeSandbox(), session: 'trajectory' })).toThrow(ConfigError);
    const env = codeInterpreter({ sandbox: fakeSandbox() });
    expect(env.tools[0]!.function.description).toMatch(/starts fresh/);
  });
  it('turns a failed session open into a sandbox_error observation', async () => {
    const sandbox: Sandbox = {
      name: 'x',
      supportsSessions: true,
      run: async () => base,
      close: async () => {},
      openSession: async () => Promise.reject(new Error('no room')),
    };
    const env = codeInterpreter({ sandbox, session: 'trajectory' });
    const c = ctx();
    const out = await env.step(toolAction('print(1)'), c);
    expect(out).toMatchObject({ done: false, exec: { status: 'sandbox_error', stderr: 'no room' } });
    await env.endTrajectory!(c);
  });
});

describe('codeInterpreter.checkToolCall (the ReTool recipe rule: non-blank code)', () => {
  it('refuses blank or non-string code and accepts real code', async () => {
    const { codeInterpreter: make } = await import('agentrl');
    const { fakeSandbox: fake } = await import('agentrl/testing');
    const env = make({ sandbox: fake() });
    const c = (code: unknown) => ({ type: 'function' as const, function: { name: 'code_interpreter', arguments: { code } } });
    expect(env.checkToolCall?.(c('  \n '))).toBe('empty_code');
    expect(env.checkToolCall?.(c(42))).toBe('bad_arguments');
    expect(env.checkToolCall?.(c('print(1)'))).toBeNull();
  });
});
