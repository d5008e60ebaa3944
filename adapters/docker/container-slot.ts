import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { ContainerCreateOptions } from 'dockerode';
import { parseRunnerReply, type RunnerReply, type RunnerRequest } from './protocol.js';
import { onAbort as watchAbort } from '../../src/util/on-abort.js';

/** How a call on a slot ended when the runner did not reply. */
export type SlotFailure =
  | { readonly kind: 'died'; readonly oomKilled: boolean; readonly detail: string }
  | { readonly kind: 'backstop' }
  | { readonly kind: 'aborted'; readonly reason: unknown };

interface Pending {
  readonly id: number;
  resolve(v: RunnerReply | SlotFailure): void;
}

/**
 * One pooled, hardened container running the Python runner, talked to over its attached stdio.
 * A slot serves one call at a time; the pool decides when to retire it.
 */
export class ContainerSlot {
  /** Calls served so far. */
  calls = 0;
  #dead = false;
  #pending: Pending | undefined;
  #stderrTail = '';
  #lineBuf = '';
  #ready: ((v: { pid: number } | Error) => void) | undefined;
  readonly #container: Docker.Container;
  readonly #stream: Duplex;
  readonly #onDeath: () => void;

  private constructor(container: Docker.Container, stream: Duplex, onDeath: () => void) {
    this.#container = container;
    this.#stream = stream;
    this.#onDeath = onDeath;
  }

  /** Container id (for logs and tests). */
  get id(): string {
    return this.#container.id;
  }

  /** False once the runner or its container is gone. */
  get alive(): boolean {
    return !this.#dead;
  }

  /**
   * Creates, attaches (before start, so no early output is lost), starts the container and waits
   * for the runner's ready line. Removes the container again on any failure.
   * @throws Error with the runner's stderr tail when it does not come up within `startTimeoutMs`.
   */
  static async start(
    docker: Docker,
    spec: ContainerCreateOptions,
    opts: { readonly startTimeoutMs: number; readonly onDeath: () => void },
  ): Promise<ContainerSlot> {
    const container = await docker.createContainer(spec);
    try {
      const stream = (await container.attach({
        stream: true,
        hijack: true,
        stdin: true,
        stdout: true,
        stderr: true,
      })) as unknown as Duplex;
      const slot = new ContainerSlot(container, stream, opts.onDeath);
      slot.#wire(docker);
      const ready = new Promise<{ pid: number } | Error>((resolve) => {
        slot.#ready = resolve;
      });
      await container.start();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<Error>((resolve) => {
        timer = setTimeout(() => resolve(new Error(`runner not ready within ${opts.startTimeoutMs} ms`)), opts.startTimeoutMs);
      });
      const got = await Promise.race([ready, timeout]);
      clearTimeout(timer);
      if (got instanceof Error) {
        throw new Error(`${got.message}${slot.#stderrTail ? `; runner stderr: ${slot.#stderrTail.slice(-800)}` : ''}`);
      }
      return slot;
    } catch (e) {
      await container.remove({ force: true }).catch(() => undefined);
      throw e;
    }
  }

  #wire(docker: Docker): void {
    const out = new PassThrough();
    const err = new PassThrough();
    docker.modem.demuxStream(this.#stream, out, err);
    out.on('data', (chunk: Buffer) => this.#onStdout(chunk.toString('utf8')));
    err.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    const onEnd = (): void => this.#markDead();
    this.#stream.on('end', onEnd);
    this.#stream.on('close', onEnd);
    this.#stream.on('error', onEnd);
  }

  #onStdout(text: string): void {
    this.#lineBuf += text;
    let nl = this.#lineBuf.indexOf('\n');
    while (nl >= 0) {
      const line = this.#lineBuf.slice(0, nl);
      this.#lineBuf = this.#lineBuf.slice(nl + 1);
      this.#onLine(line);
      nl = this.#lineBuf.indexOf('\n');
    }
    // A runner never sends more than a few hundred KiB per line; anything bigger is garbage.
    if (this.#lineBuf.length > 64 * 1024 * 1024) this.#lineBuf = '';
  }

  #onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (this.#ready && typeof value === 'object' && value !== null && (value as { ready?: unknown }).ready === true) {
      const ready = this.#ready;
      this.#ready = undefined;
      ready({ pid: Number((value as { pid?: unknown }).pid) });
      return;
    }
    const reply = parseRunnerReply(value);
    const pending = this.#pending;
    if (reply && pending && reply.id === pending.id) {
      this.#pending = undefined;
      pending.resolve(reply);
    }
  }

  #markDead(): void {
    if (this.#dead) return;
    this.#dead = true;
    if (this.#ready) {
      const ready = this.#ready;
      this.#ready = undefined;
      ready(new Error('runner exited before it was ready'));
    }
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) {
      void this.#container
        .inspect()
        .then((info) => Boolean(info.State?.OOMKilled))
        .catch(() => false)
        .then((oomKilled) => pending.resolve({ kind: 'died', oomKilled, detail: this.#stderrTail.slice(-800) }));
    }
    this.#onDeath();
  }

  /**
   * Sends one request and resolves with the runner's reply, or with a {@link SlotFailure} when the
   * container dies, the backstop deadline (`backstopMs` after sending) passes, or `signal` aborts.
   * Never rejects.
   */
  call(req: RunnerRequest, backstopMs: number, signal?: AbortSignal): Promise<RunnerReply | SlotFailure> {
    if (this.#dead) return Promise.resolve({ kind: 'died', oomKilled: false, detail: this.#stderrTail.slice(-800) });
    this.calls += 1;
    return new Promise<RunnerReply | SlotFailure>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let unwatch = (): void => undefined;
      const onAbort = (): void => settle({ kind: 'aborted', reason: signal?.reason });
      const settle = (v: RunnerReply | SlotFailure): void => {
        clearTimeout(timer);
        unwatch();
        if (this.#pending?.id === req.id) this.#pending = undefined;
        resolve(v);
      };
      this.#pending = { id: req.id, resolve: settle };
      timer = setTimeout(() => settle({ kind: 'backstop' }), backstopMs);
      unwatch = watchAbort(signal, onAbort);
      this.#stream.write(`${JSON.stringify(req)}\n`);
    });
  }

  /** SIGKILLs and force-removes the container. Never rejects. */
  async destroy(): Promise<void> {
    this.#dead = true;
    this.#stream.destroy();
    await this.#container.remove({ force: true }).catch(() => undefined);
  }
}
