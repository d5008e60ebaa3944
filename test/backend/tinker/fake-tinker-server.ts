import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { decodeForwardBackwardRequest } from '../../../apps/serve/tinker/proto-wire.js';

/** A protobuf ForwardBackwardRequest in the JSON shape of SDK ≤ 0.24 (forward_only → `forward_input`). */
function protoToJson(raw: Buffer): Record<string, unknown> {
  const b = decodeForwardBackwardRequest(raw);
  return b.forward_only
    ? { model_id: b.model_id, seq_id: b.seq_id, forward_input: b.forward_backward_input, forward_only: true }
    : { model_id: b.model_id, seq_id: b.seq_id, forward_backward_input: b.forward_backward_input };
}

/** One request the fake server received. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** Parsed JSON body (undefined for protobuf or empty bodies). */
  readonly json: Record<string, unknown> | undefined;
  readonly raw: Buffer;
}

/** What a hook answers: a status and a JSON or raw body; `undefined` falls through to the default behaviour. */
export interface Reply {
  readonly status?: number;
  readonly json?: unknown;
  readonly raw?: Uint8Array;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  /** Destroy the socket without answering. */
  readonly hangUp?: boolean;
}

/** A stored future: the operation and its request body. */
export interface StoredFuture {
  readonly op: string;
  readonly body: SeenRequest;
}

export interface FakeTinkerOptions {
  /** Answers a request before the default behaviour; return undefined to fall through. */
  readonly hook?: (req: SeenRequest, server: FakeTinker) => Reply | undefined | Promise<Reply | undefined>;
  /** Learner logprob the fake model returns for every target token. @default -0.5 */
  readonly logprob?: number;
  /**
   * Protobuf request bodies: refused with 415 (a JSON-only server, the default), refused as FastAPI does for a body
   * that is not JSON (422), or decoded (`accept`).
   */
  readonly protobufBodies?: 'refuse415' | 'refuse422' | 'accept';
}

/**
 * A scripted Tinker-protocol server on 127.0.0.1 (node:http): sessions, models, futures resolved on the first
 * `retrieve_future`, a fake model whose learner logprob is a constant, and a `seq_id` check per model
 * (409 on reuse with other content, as SkyRL). Hooks script faults.
 */
export class FakeTinker {
  readonly requests: SeenRequest[] = [];
  readonly futures = new Map<string, StoredFuture>();
  /** seq_ids per model in arrival order. */
  readonly seqs = new Map<string, number[]>();
  readonly #bySeq = new Map<string, { raw: string; requestId: string }>();
  readonly #server = createServer((req, res) => void this.#handle(req, res));
  readonly #sockets = new Set<Socket>();
  readonly #opts: FakeTinkerOptions;
  #next = 1;
  url = '';

  constructor(opts: FakeTinkerOptions = {}) {
    this.#opts = opts;
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  static async start(opts: FakeTinkerOptions = {}): Promise<FakeTinker> {
    const f = new FakeTinker(opts);
    await new Promise<void>((r) => f.#server.listen(0, '127.0.0.1', r));
    f.url = `http://127.0.0.1:${(f.#server.address() as AddressInfo).port}`;
    return f;
  }

  /** Requests to `path` (e.g. `/api/v1/forward_backward`). */
  seen(path: string): SeenRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Stores a future for `op` and returns its id. */
  addFuture(op: string, body: SeenRequest): string {
    const id = `r${this.#next++}`;
    this.futures.set(id, { op, body });
    return id;
  }

  /** Stops accepting, destroys open connections (a crash, as seen by the client). */
  async kill(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    let json: Record<string, unknown> | undefined;
    if ((req.headers['content-type'] ?? '').startsWith('application/json') && raw.length > 0) json = JSON.parse(raw.toString('utf8'));
    const seen: SeenRequest = { method: req.method ?? 'GET', path: (req.url ?? '').split('?')[0]!, headers: req.headers, json, raw };
    this.requests.push(seen);
    const proto = (req.headers['content-type'] ?? '').startsWith('application/x-protobuf');
    const mode = this.#opts.protobufBodies ?? 'refuse415';
    const refusal: Reply | undefined =
      !proto || mode === 'accept'
        ? undefined
        : mode === 'refuse415'
          ? { status: 415, json: { detail: 'Content-Type must be application/json' } }
          : { status: 422, json: { detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error' }] } };
    if (proto && mode === 'accept') json = protoToJson(raw);
    const found: SeenRequest = json === seen.json ? seen : { ...seen, json };
    if (found !== seen) this.requests[this.requests.length - 1] = found;
    const reply = refusal ?? (await this.#opts.hook?.(found, this)) ?? this.#default(found);
    if (reply.hangUp) {
      req.socket.destroy();
      return;
    }
    const body = reply.raw ? Buffer.from(reply.raw) : Buffer.from(JSON.stringify(reply.json ?? {}));
    res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json', ...reply.headers });
    res.end(body);
  }

  #default(r: SeenRequest): Reply {
    const b = r.json ?? {};
    const op = r.path.replace('/api/v1/', '');
    switch (op) {
      case 'create_session':
        return { json: { type: 'create_session', session_id: 'sess-1' } };
      case 'get_server_capabilities':
        return { json: { supported_models: [{ model_name: 'fake/model', max_context_length: 512 }, { model_name: 'old/model' }] } };
      case 'session_heartbeat':
        return { json: { type: 'session_heartbeat' } };
      case 'get_info':
        return { json: { type: 'get_info', model_id: b['model_id'], model_data: { model_name: 'fake' }, is_lora: true, lora_rank: 32 } };
      case 'create_sampling_session':
        return { json: { type: 'create_sampling_session', sampling_session_id: `samp-${String(b['sampling_session_seq_id'])}` } };
      case 'create_model':
      case 'asample':
        return { json: { request_id: this.addFuture(op, r) } };
      case 'forward_backward':
      case 'forward':
      case 'optim_step':
      case 'save_weights':
      case 'load_weights':
      case 'save_weights_for_sampler': {
        const model = String(b['model_id']);
        const seq = Number(b['seq_id']);
        const key = `${model}#${seq}`;
        const prev = this.#bySeq.get(key);
        const canon = JSON.stringify({ ...b });
        if (prev) {
          if (prev.raw !== canon) return { status: 409, json: { detail: 'Training request sequence number was reused' } };
          return { json: { request_id: prev.requestId } };
        }
        const id = this.addFuture(op, r);
        this.#bySeq.set(key, { raw: canon, requestId: id });
        this.seqs.set(model, [...(this.seqs.get(model) ?? []), seq]);
        return { json: { request_id: id } };
      }
      case 'retrieve_future': {
        const f = this.futures.get(String(b['request_id']));
        if (!f) return { status: 404, json: { detail: 'unknown request' } };
        return { json: this.result(f) };
      }
      default:
        return { status: 404, json: { detail: `no route ${r.path}` } };
    }
  }

  /** The default result of a stored future. */
  result(f: StoredFuture): unknown {
    const b = f.body.json ?? {};
    const lp = this.#opts.logprob ?? -0.5;
    switch (f.op) {
      case 'create_model':
        return { type: 'create_model', model_id: `model-${String(b['model_seq_id'])}` };
      case 'forward_backward':
      case 'forward': {
        const input = (b['forward_backward_input'] ?? b['forward_input']) as {
          data: { model_input: { chunks: { tokens: number[] }[] }; loss_fn_inputs: Record<string, { data: number[] }> }[];
          loss_fn: string;
          loss_fn_config?: Record<string, number>;
        };
        let loss = 0;
        const outs = input.data.map((d) => {
          const T = d.model_input.chunks.reduce((a, c) => a + c.tokens.length, 0);
          const inp = d.loss_fn_inputs;
          for (let t = 0; t < T; t++) {
            if (input.loss_fn === 'cross_entropy') loss += -lp * inp['weights']!.data[t]!;
            else {
              const r = Math.exp(lp - inp['logprobs']!.data[t]!);
              const a = inp['advantages']!.data[t]!;
              if (input.loss_fn === 'ppo') {
                const lo = input.loss_fn_config!['clip_low_threshold']!;
                const hi = input.loss_fn_config!['clip_high_threshold']!;
                loss += -Math.min(r * a, Math.min(Math.max(r, lo), hi) * a);
              } else loss += -r * a;
            }
          }
          return { logprobs: { data: new Array<number>(T).fill(lp), dtype: 'float32', shape: [T] } };
        });
        return { loss_fn_output_type: 'ArrayRecord', loss_fn_outputs: outs, metrics: { 'loss:sum': loss } };
      }
      case 'optim_step':
        return { type: 'optim_step', metrics: { 'grad_norm:mean': 0.5 } };
      case 'save_weights':
        return { type: 'save_weights', path: `tinker://${String(b['model_id'])}/weights/${String(b['path'])}` };
      case 'load_weights':
        return { type: 'load_weights', path: b['path'] };
      case 'save_weights_for_sampler':
        return { type: 'save_weights_for_sampler', sampling_session_id: `samp-${String(b['sampling_session_seq_id'])}` };
      case 'asample': {
        const n = Number(b['num_samples'] ?? 1);
        const prompt = (b['prompt'] as { chunks: { tokens: number[] }[] }).chunks.flatMap((c) => c.tokens);
        const seq = { tokens: [7, 8, 2], logprobs: [-0.1, -0.2, -0.3], stop_reason: 'stop' };
        return {
          type: 'sample',
          sequences: new Array(n).fill(seq),
          ...(b['prompt_logprobs'] ? { prompt_logprobs: prompt.map((_, i) => (i === 0 ? null : -1 - i)) } : {}),
        };
      }
      default:
        return { error: `no result for ${f.op}`, category: 'server' };
    }
  }
}
