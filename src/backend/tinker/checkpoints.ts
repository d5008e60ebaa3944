import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { request } from 'undici';
import tar from 'tar-stream';
import { BackendInputError, BackendRequestError, CheckpointError } from '../../errors/index.js';
import { httpStatusKind } from '../../errors/http-status.js';
import { jsonOf, TinkerHttp } from './http.js';
import { resolveTinkerOptions, type TinkerBackendOptions } from './options.js';
import { ENGINE_PROFILES, type EngineProfile } from './engines/profiles.js';

/** Connection options of the checkpoint helpers (those of {@link tinkerBackend} that concern the transport). */
export type TinkerRestOptions = Pick<TinkerBackendOptions, 'baseUrl' | 'apiKey' | 'extraHeaders' | 'timeouts' | 'retry' | 'dispatcher' | 'engine'>;

/** The engine's checkpoint routes (`engine` unset or `'auto'`: Tinker's, which agentrl serve also serves). */
function routesOf(o: TinkerRestOptions): { engine: string; routes: EngineProfile['checkpointRoutes'] } {
  const name = o.engine === undefined || o.engine === 'auto' ? 'tinker' : o.engine;
  return { engine: name, routes: ENGINE_PROFILES[name].checkpointRoutes };
}

/** One checkpoint as the server lists it (Tinker `Checkpoint`). */
export interface TinkerCheckpoint {
  /** `weights/<name>` or `sampler_weights/<name>`. */
  readonly checkpointId: string;
  /** `training` (weights + optimizer state, `save_weights`) or `sampler` (`save_weights_for_sampler`). */
  readonly type: 'training' | 'sampler';
  /** `tinker://<run>/<weights|sampler_weights>/<name>`. */
  readonly tinkerPath: string;
  /** When it was saved, as the server wrote it (ISO 8601). */
  readonly time: string;
  /** Size in bytes, when the server reports it. */
  readonly sizeBytes?: number;
  /** The base model it was trained from, when the server reports it (Tinker SDK ≥ 0.39 `Checkpoint.base_model`). */
  readonly baseModel?: string;
  /** The `user_metadata` it was saved with (SDK ≥ 0.26), string values only, when the server reports it. */
  readonly userMetadata?: Readonly<Record<string, string>>;
}

/** Options of {@link downloadCheckpoint}. */
export interface DownloadCheckpointOptions extends TinkerRestOptions {
  /** Largest archive accepted, bytes; a larger one is refused before (by `Content-Length`) or while reading. @default 17_179_869_184 (16 GiB) */
  readonly maxBytes?: number;
}

/** What {@link downloadCheckpoint} wrote. */
export interface DownloadedCheckpoint {
  /** The folder the archive was extracted into. */
  readonly dir: string;
  /** Files extracted, relative to `dir`. */
  readonly files: string[];
  /** Archive bytes read. */
  readonly bytes: number;
  /** SHA-256 of the archive, hex (computed here). */
  readonly sha256: string;
  /** Whether the server's own checksum (`Content-MD5`, or `x-goog-hash: md5=…` of a signed storage URL) was checked. */
  readonly verified: boolean;
}

function restHttp(o: TinkerRestOptions): TinkerHttp {
  // The transport options alone; baseModel and renderer are not used by REST calls.
  return new TinkerHttp(resolveTinkerOptions({ ...o, baseModel: 'rest', renderer: 'rest' }));
}

/** The string entries of a JSON object (other values dropped), or `undefined` when it is not an object. */
function stringRecord(v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Parses `tinker://<run>/<weights|sampler_weights>/<name>`. @throws BackendInputError */
export function parseTinkerCheckpointPath(path: string): { runId: string; kind: 'weights' | 'sampler_weights'; name: string } {
  const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
  if (!m) throw new BackendInputError('tinkerPath', `expected tinker://<run>/weights/<name> or …/sampler_weights/<name>, got '${path}'`);
  return { runId: m[1]!, kind: m[2] as 'weights' | 'sampler_weights', name: m[3]! };
}

/**
 * Lists checkpoints: of one training run (`GET /api/v1/training_runs/{id}/checkpoints`), or every checkpoint of the
 * caller (`GET /api/v1/checkpoints`, paged through).
 * @throws BackendRequestError (404 for an unknown run), BackendAuthError, BackendUnavailableError.
 */
export async function listCheckpoints(options: TinkerRestOptions, runId?: string): Promise<TinkerCheckpoint[]> {
  const { engine, routes } = routesOf(options);
  if (runId === undefined && routes.listForUser === null) {
    throw new BackendInputError(
      'runId',
      `${engine} has no GET /api/v1/checkpoints (no list of the caller's checkpoints); pass the training run id (the model id) to list one run's`,
    );
  }
  const http = restHttp(options);
  try {
    const out: TinkerCheckpoint[] = [];
    for (let offset = 0; ; ) {
      const path = runId !== undefined ? `/api/v1/training_runs/${encodeURIComponent(runId)}/checkpoints` : `/api/v1/checkpoints?limit=100&offset=${offset}`;
      const body = jsonOf(await http.call('list_checkpoints', path, undefined, { method: 'GET' })) as
        | { checkpoints?: unknown[]; cursor?: { total_count?: number } }
        | undefined;
      const page = (body?.checkpoints ?? []).flatMap((c) => {
        const r = c as Record<string, unknown>;
        if (typeof r['tinker_path'] !== 'string' || typeof r['checkpoint_id'] !== 'string') return [];
        const meta = stringRecord(r['user_metadata']);
        return [
          {
            checkpointId: r['checkpoint_id'],
            type: r['checkpoint_type'] === 'sampler' ? ('sampler' as const) : ('training' as const),
            tinkerPath: r['tinker_path'],
            time: String(r['time'] ?? ''),
            ...(typeof r['size_bytes'] === 'number' ? { sizeBytes: r['size_bytes'] } : {}),
            ...(typeof r['base_model'] === 'string' ? { baseModel: r['base_model'] } : {}),
            ...(meta ? { userMetadata: meta } : {}),
          },
        ];
      });
      out.push(...page);
      offset += page.length;
      if (runId !== undefined || page.length === 0 || offset >= (body?.cursor?.total_count ?? 0)) return out;
    }
  } finally {
    await http.close(new Error('closed'));
  }
}

/**
 * The archive URL of a checkpoint: the `Location` of a 302 (every SDK version) or `{url}` of a 200 (newer servers), at
 * the engine's archive route (SkyRL: `…/checkpoints/{name}/archive`, sampler checkpoints only).
 * @throws BackendInputError when the engine has no archive route for this kind of checkpoint.
 */
async function archiveUrl(http: TinkerHttp, options: TinkerRestOptions, runId: string, kind: 'weights' | 'sampler_weights', name: string): Promise<string> {
  const { engine, routes } = routesOf(options);
  if (routes.archive === null || !routes.archive.kinds.includes(kind)) {
    throw new BackendInputError(
      'tinkerPath',
      `${engine} serves no archive of ${kind === 'weights' ? 'training states (save_weights)' : 'sampler checkpoints'}${routes.archive ? `; only of ${routes.archive.kinds.join(', ')}` : ''}`,
    );
  }
  const path = routes.archive.path.replace('{run}', encodeURIComponent(runId)).replace('{kind}', kind).replace('{name}', encodeURIComponent(name));
  const a = await http.send('GET', path, undefined, { timeoutMs: 600_000 });
  const loc = a.headers['location'];
  if (a.status >= 300 && a.status < 400 && typeof loc === 'string') return new URL(loc, http.url(path)).toString();
  const url = (jsonOf(a) as { url?: unknown } | undefined)?.url;
  if (a.status === 200 && typeof url === 'string') return url;
  const text = a.body.toString('utf8').slice(0, 300);
  throw new BackendRequestError(
    'checkpoint_archive',
    ['server', 'gateway'].includes(httpStatusKind(a.status)) ? 'server' : 'unknown',
    `no archive URL for tinker://${runId}/${kind}/${name}: HTTP ${a.status} ${text}`,
    { status: a.status },
  );
}

/** A tar member name as a path inside `dir`, or undefined when it would leave `dir` (absolute, `..`). */
function inside(dir: string, name: string): string | undefined {
  const rel = normalize(name).replace(/^(\.\/)+/, '');
  if (rel === '' || rel === '.' || rel.startsWith('..') || rel.startsWith(sep) || /^[A-Za-z]:/.test(rel)) return undefined;
  return join(dir, rel);
}

/**
 * Downloads a checkpoint through its archive URL and extracts it into `dir` (created): the archive is streamed (never
 * held in memory), capped at `maxBytes`, hashed (SHA-256) and checked against the server's MD5 when it sends one;
 * only regular files inside `dir` are written (links and paths leaving `dir` are refused). On any failure the files
 * written so far are removed.
 * @throws BackendInputError for a malformed path; BackendRequestError (HTTP errors, a size or checksum mismatch);
 *   CheckpointError for an unsafe or corrupt archive.
 */
export async function downloadCheckpoint(tinkerPath: string, dir: string, options: DownloadCheckpointOptions = {}): Promise<DownloadedCheckpoint> {
  const { runId, kind, name } = parseTinkerCheckpointPath(tinkerPath);
  const maxBytes = options.maxBytes ?? 16 * 1024 ** 3;
  const http = restHttp(options);
  const files: string[] = [];
  try {
    const url = await archiveUrl(http, options, runId, kind, name);
    // A signed URL needs no key (and must not get it when it points elsewhere); the SDK's helper sends none.
    const res = await request(url, { method: 'GET', headers: { 'user-agent': 'agentrl' }, ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}) });
    if (res.statusCode !== 200) {
      const text = (await res.body.text()).slice(0, 300);
      throw new BackendRequestError('checkpoint_archive', 'unknown', `archive download: HTTP ${res.statusCode} ${text}`, { status: res.statusCode });
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      res.body.destroy();
      throw new BackendRequestError('checkpoint_archive', 'unknown', `archive of ${declared} bytes exceeds maxBytes ${maxBytes}`);
    }
    const md5Header = res.headers['content-md5'] ?? /(?:^|,)\s*md5=([^,]+)/.exec(String(res.headers['x-goog-hash'] ?? ''))?.[1];
    const sha = createHash('sha256');
    const md5 = createHash('md5');
    let bytes = 0;
    const counted = Readable.from(
      (async function* () {
        for await (const chunk of res.body) {
          const b = chunk as Buffer;
          bytes += b.length;
          if (bytes > maxBytes) throw new BackendRequestError('checkpoint_archive', 'unknown', `archive exceeds maxBytes ${maxBytes}`);
          sha.update(b);
          md5.update(b);
          yield b;
        }
      })(),
    );
    await mkdir(dir, { recursive: true });
    const extract = tar.extract();
    extract.on('entry', (header, stream, next) => {
      const target = header.type === 'file' || header.type === 'directory' ? inside(dir, header.name) : undefined;
      if (target === undefined) {
        stream.resume();
        next(new CheckpointError(`unsafe archive member '${header.name}' (${header.type ?? '?'}): only files inside the folder are extracted`));
        return;
      }
      if (header.type === 'directory') {
        stream.resume();
        mkdir(target, { recursive: true }).then(() => next(), next);
        return;
      }
      mkdir(dirname(target), { recursive: true })
        .then(() => pipeline(stream, createWriteStream(target)))
        .then(() => {
          files.push(target.slice(dir.length + 1));
          next();
        }, next);
    });
    await pipeline(counted, extract);
    if (Number.isFinite(declared) && declared !== bytes)
      throw new BackendRequestError('checkpoint_archive', 'unknown', `archive truncated: ${bytes} of ${declared} bytes`);
    const verified = typeof md5Header === 'string';
    if (verified && md5.digest('base64') !== md5Header)
      throw new BackendRequestError('checkpoint_archive', 'unknown', "archive MD5 does not match the server's checksum");
    return { dir, files: files.sort(), bytes, sha256: sha.digest('hex'), verified };
  } catch (e) {
    for (const f of files) await rm(join(dir, f), { force: true });
    throw e;
  } finally {
    await http.close(new Error('closed'));
  }
}
