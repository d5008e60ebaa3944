import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Example } from '../../types/example.js';
import type { AgentRunArgs } from './agent-run-args.js';
import { AgentProgramError } from '../../errors/env-errors.js';

/** How {@link subprocessAgent} starts the agent program. */
export interface SubprocessAgentOptions {
  /** The program and its arguments, e.g. `['python3', 'agent.py']` (no shell). */
  readonly command: readonly string[];
  /** Variables added to the program's minimal environment (they win over the defaults). */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory. @default the trainer's */
  readonly cwd?: string;
}

/** Bytes of stdout kept (its last part) as the answer; of stderr kept for the error. */
const STDOUT_BYTES = 1 << 20;
const STDERR_BYTES = 4096;

/** A bounded buffer keeping the last `max` bytes written to it. */
class Tail {
  #chunks: Buffer[] = [];
  #bytes = 0;
  constructor(readonly max: number) {}
  push(b: Buffer): void {
    this.#chunks.push(b);
    this.#bytes += b.length;
    while (this.#bytes - this.#chunks[0]!.length >= this.max) this.#bytes -= this.#chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.#chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}

/** The example as the program gets it: every field but the reference `answer` (an agent never needs it; a prompt must never hold it). */
function exampleForAgent(e: Example): Record<string, unknown> {
  const { answer: _withheld, ...rest } = e as Example & Record<string, unknown>;
  return rest;
}

/** The last `max` bytes of a file as text, or undefined when there is no such file. */
async function readTail(path: string, max: number): Promise<string | undefined> {
  const fh = await open(path, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const { size } = await fh.stat();
    const length = Math.min(size, max);
    const buf = Buffer.alloc(length);
    await fh.read(buf, 0, length, size - length);
    return buf.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Ends the program's whole process group (it was started as the leader of its own). */
function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * A `run` for agentEnvironment that starts an agent program per rollout, in any language, unchanged except that it
 * reads the usual variables: `OPENAI_BASE_URL` / `OPENAI_API_KEY` (the rollout's OpenAI endpoint: chat completions,
 * responses), `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY` (its Anthropic Messages endpoint), `AGENTRL_MODEL` (the
 * model name to send). The example (every field but `answer`) is written as one JSON line to its stdin and to the file
 * named by `AGENTRL_EXAMPLE_FILE`. Its answer is the content of the file named by `AGENTRL_ANSWER_FILE` when it wrote
 * one, else its stdout (the last 1 MiB, trimmed).
 *
 * Isolation: the program gets only `PATH`, `HOME` and `TMPDIR` (a fresh temp folder per rollout, removed after),
 * `LANG`, the variables above and `options.env` — never the trainer's own environment (API keys, tokens). It starts
 * as the leader of its own process group, and the whole group is killed when the rollout is aborted or runs past its
 * deadline, and once the program has exited (nothing it spawned outlives the rollout).
 * @returns a function that rejects with the exit status and the last 4 KiB of stderr when the program exits non-zero
 *   or is killed by a signal.
 */
export function subprocessAgent(options: SubprocessAgentOptions): (args: AgentRunArgs) => Promise<string> {
  const [program, ...argv] = options.command;
  return async (args) => {
    const dir = await mkdtemp(join(tmpdir(), 'agentrl-agent-'));
    const exampleFile = join(dir, 'example.json');
    const answerFile = join(dir, 'answer.txt');
    const example = JSON.stringify(exampleForAgent(args.example));
    await writeFile(exampleFile, example);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: dir,
      TMPDIR: dir,
      LANG: 'C.UTF-8',
      OPENAI_BASE_URL: args.baseURL,
      OPENAI_API_KEY: args.apiKey,
      ANTHROPIC_BASE_URL: args.anthropicBaseURL,
      ANTHROPIC_API_KEY: args.apiKey,
      AGENTRL_MODEL: args.model,
      AGENTRL_EXAMPLE_FILE: exampleFile,
      AGENTRL_ANSWER_FILE: answerFile,
      AGENTRL_TRAJECTORY_ID: args.trajectoryId,
      ...options.env,
    };
    try {
      const stdout = await new Promise<string>((resolve, reject) => {
        const child = spawn(program!, argv, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
        const out = new Tail(STDOUT_BYTES);
        const err = new Tail(STDERR_BYTES);
        const onAbort = () => killTree(child.pid);
        args.signal.addEventListener('abort', onAbort, { once: true });
        child.stdout.on('data', (b: Buffer) => out.push(b));
        child.stderr.on('data', (b: Buffer) => err.push(b));
        child.stdin.on('error', () => {}); // a program that never reads its stdin
        child.stdin.end(`${example}\n`);
        child.on('error', (e) => {
          args.signal.removeEventListener('abort', onAbort);
          reject(new AgentProgramError(`the agent program ${JSON.stringify(program)} could not start: ${e.message}`, { cause: e }));
        });
        child.on('close', (code, sig) => {
          args.signal.removeEventListener('abort', onAbort);
          killTree(child.pid);
          if (code === 0) return resolve(out.text());
          const stderr = err.text().trim();
          const why = sig ? `was killed by ${sig}` : `exited with code ${code}`;
          reject(new AgentProgramError(`the agent program ${why}${stderr ? `; stderr (last ${STDERR_BYTES} bytes):\n${stderr}` : ' (no stderr)'}`));
        });
      });
      const written = await readTail(answerFile, STDOUT_BYTES);
      return (written ?? stdout).trim();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
