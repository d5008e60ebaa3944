import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { archiveSize, checkpointArchive, type CheckpointKind, type StoredCheckpoint } from './stored-checkpoints.js';
import { ServeRequestError } from './errors.js';
import type { ServeCaller } from './caller.js';
import type { RunRecord, TinkerService } from './service.js';
import { parseTinkerPath } from './request-schemas.js';

/** How long a checkpoint archive URL stays valid, ms (the hosted service's 15 minutes). */
export const ARCHIVE_URL_TTL_MS = 15 * 60_000;

const pageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Tinker `Checkpoint` JSON of a stored checkpoint; `base_model` and `user_metadata` are the fields SDK ≥ 0.26 reads
 * (SDK changelog 0.39: `Checkpoint.base_model`; `SaveWeightsRequest.user_metadata`).
 */
export function checkpointJson(runId: string, c: StoredCheckpoint, baseModel: string): Record<string, unknown> {
  return {
    checkpoint_id: `${c.kind}/${c.name}`,
    checkpoint_type: c.kind === 'weights' ? 'training' : 'sampler',
    time: iso(c.time),
    tinker_path: `tinker://${runId}/${c.kind}/${c.name}`,
    size_bytes: c.sizeBytes,
    public: false,
    expires_at: null,
    user_metadata: c.userMetadata ?? null,
    base_model: baseModel,
  };
}

/** Tinker `TrainingRun` JSON (`user_metadata` values as strings, as the SDK's model types them). */
function runJson(r: RunRecord, checkpoints: readonly StoredCheckpoint[]): Record<string, unknown> {
  const last = (kind: CheckpointKind) => checkpoints.filter((c) => c.kind === kind).at(-1);
  const lw = last('weights');
  const ls = last('sampler_weights');
  return {
    training_run_id: r.id,
    base_model: r.baseModel,
    model_owner: r.principal,
    is_lora: r.lora !== undefined,
    corrupted: false,
    ...(r.lora?.rank !== undefined && r.lora.rank !== null ? { lora_rank: r.lora.rank } : {}),
    last_request_time: iso(r.lastRequestTime),
    ...(lw ? { last_checkpoint: checkpointJson(r.id, lw, r.baseModel) } : {}),
    ...(ls ? { last_sampler_checkpoint: checkpointJson(r.id, ls, r.baseModel) } : {}),
    ...(r.userMetadata
      ? { user_metadata: Object.fromEntries(Object.entries(r.userMetadata).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) }
      : {}),
  };
}

function kindOf(segment: string): CheckpointKind {
  if (segment === 'weights' || segment === 'sampler_weights') return segment;
  throw new ServeRequestError(404, `checkpoint ids are weights/<name> or sampler_weights/<name>, got '${segment}/…'`);
}

/**
 * The REST surface of the Tinker API (the SDK's `RestClient`, `ServiceClient.create_training_client_from_state*`,
 * `SamplingClient.get_base_model`), every listing and lookup scoped to the caller (`service.callerOf`, the same
 * principal as the Tinker routes; another principal's run, checkpoint, session or sampler answers 404):
 * - `POST /weights_info` `{tinker_path}` → `{base_model, is_lora, lora_rank?, train_*}`;
 * - `GET /samplers/{id}` → `{sampler_id, base_model, model_path?}`;
 * - `GET /training_runs?limit&offset` → `{training_runs, cursor: {offset, limit, total_count}}`, `GET /training_runs/{id}`;
 * - `GET /training_runs/{id}/checkpoints`, `GET /checkpoints?limit&offset` (all of the caller's);
 * - `DELETE /training_runs/{id}/checkpoints/{weights|sampler_weights}/{name}` → 204;
 * - `GET …/checkpoints/{kind}/{name}/archive` → 302 to a signed URL (valid {@link ARCHIVE_URL_TTL_MS}, `Expires`
 *   header) that serves the checkpoint as a tar archive without an API key;
 * - `GET /sessions?limit&offset` → `{sessions: [id]}`, `GET /sessions/{id}` → `{training_run_ids, sampler_ids}`.
 * Unknown ids answer 404 `{error, category: "user"}`.
 */
export function registerTinkerRestRoutes(app: FastifyInstance, service: TinkerService): void {
  const p = '/api/v1';
  const callerOf = (req: FastifyRequest) => service.callerOf(req.headers);
  const handle =
    <R>(fn: (req: FastifyRequest, reply: FastifyReply, caller: ServeCaller) => Promise<R> | R) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        return await fn(req, reply, callerOf(req));
      } catch (e) {
        if (e instanceof ServeRequestError) return reply.code(e.status).send({ error: e.message, category: e.category });
        if (e instanceof z.ZodError)
          return reply.code(400).send({ error: e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), category: 'user' });
        throw e;
      }
    };
  const page = (req: FastifyRequest) => pageSchema.parse(req.query ?? {});
  const params = (req: FastifyRequest) => req.params as Record<string, string>;
  const checkpointOf = async (req: FastifyRequest, caller: ServeCaller) => {
    const q = params(req);
    return service.checkpoint(caller, q['id']!, kindOf(q['kind']!), q['name']!);
  };

  app.post(
    `${p}/weights_info`,
    handle(async (req, _reply, caller) => {
      const body = z.object({ tinker_path: z.string() }).parse(req.body ?? {});
      let tp;
      try {
        tp = parseTinkerPath(body.tinker_path, 'tinker_path');
      } catch (e) {
        throw new ServeRequestError(400, e instanceof Error ? e.message : String(e));
      }
      const run = service.trainingRun(caller, tp.modelId);
      await service.checkpoint(caller, tp.modelId, tp.kind, tp.name);
      const l = run.lora;
      return {
        base_model: run.baseModel,
        is_lora: l !== undefined,
        ...(l?.rank !== undefined && l.rank !== null ? { lora_rank: l.rank } : {}),
        ...(l ? { train_unembed: l.train_unembed ?? true, train_mlp: l.train_mlp ?? true, train_attn: l.train_attn ?? true } : {}),
      };
    }),
  );

  app.get(
    `${p}/samplers/:id`,
    handle((req, _reply, caller) => service.samplerInfo(caller, params(req)['id']!)),
  );

  app.get(
    `${p}/training_runs`,
    handle(async (req, _reply, caller) => {
      const { limit, offset } = page(req);
      const runs = service.trainingRuns(caller);
      const slice = runs.slice(offset, offset + limit);
      const out = [];
      for (const r of slice) out.push(runJson(r, await service.checkpoints(caller, r.id)));
      return { training_runs: out, cursor: { offset, limit, total_count: runs.length } };
    }),
  );

  app.get(
    `${p}/training_runs/:id`,
    handle(async (req, _reply, caller) => {
      const r = service.trainingRun(caller, params(req)['id']!);
      return runJson(r, await service.checkpoints(caller, r.id));
    }),
  );

  app.get(
    `${p}/training_runs/:id/checkpoints`,
    handle(async (req, _reply, caller) => {
      const id = params(req)['id']!;
      return { checkpoints: (await service.checkpoints(caller, id)).map((c) => checkpointJson(id, c, service.modelName)) };
    }),
  );

  app.get(
    `${p}/checkpoints`,
    handle(async (req, _reply, caller) => {
      const { limit, offset } = page(req);
      const all: Record<string, unknown>[] = [];
      for (const r of service.trainingRuns(caller)) for (const c of await service.checkpoints(caller, r.id)) all.push(checkpointJson(r.id, c, r.baseModel));
      all.sort((a, b) => String(b['time']).localeCompare(String(a['time'])));
      return { checkpoints: all.slice(offset, offset + limit), cursor: { offset, limit, total_count: all.length } };
    }),
  );

  app.delete(
    `${p}/training_runs/:id/checkpoints/:kind/:name`,
    handle(async (req, reply, caller) => {
      const q = params(req);
      await service.deleteCheckpoint(caller, q['id']!, kindOf(q['kind']!), q['name']!);
      return reply.code(204).send();
    }),
  );

  // Signed archive URLs: a random token names one checkpoint until it expires.
  const tokens = new Map<string, { caller: ServeCaller; id: string; kind: CheckpointKind; name: string; expires: number }>();
  app.get(
    `${p}/training_runs/:id/checkpoints/:kind/:name/archive`,
    handle(async (req, reply, caller) => {
      const c = await checkpointOf(req, caller);
      const now = Date.now();
      for (const [t, v] of tokens) if (v.expires <= now) tokens.delete(t);
      const token = randomBytes(24).toString('hex');
      const expires = now + ARCHIVE_URL_TTL_MS;
      tokens.set(token, { caller, id: params(req)['id']!, kind: c.kind, name: c.name, expires });
      const host = req.headers.host ?? `${req.hostname}`;
      const url = `${req.protocol}://${host}${p}/checkpoint_archives/${token}`;
      return reply.code(302).header('location', url).header('expires', new Date(expires).toUTCString()).send();
    }),
  );
  app.get(
    `${p}/checkpoint_archives/:token`,
    { config: { apiKey: false } },
    handle(async (req, reply) => {
      const t = tokens.get(params(req)['token']!);
      if (!t || t.expires <= Date.now()) throw new ServeRequestError(404, 'unknown or expired archive URL; ask for a new one');
      const c = await service.checkpoint(t.caller, t.id, t.kind, t.name);
      const size = await archiveSize(c);
      return reply
        .header('content-type', 'application/x-tar')
        .header('content-length', String(size))
        .header('content-disposition', `attachment; filename="${t.id}-${c.kind}-${c.name}.tar"`)
        .send(checkpointArchive(c));
    }),
  );

  app.get(
    `${p}/sessions`,
    handle((req, _reply, caller) => {
      const { limit, offset } = page(req);
      return {
        sessions: service
          .sessions(caller)
          .map((s) => s.id)
          .slice(offset, offset + limit),
      };
    }),
  );
  app.get(
    `${p}/sessions/:id`,
    handle((req, _reply, caller) => {
      const s = service.sessions(caller).find((x) => x.id === params(req)['id']);
      if (!s) throw new ServeRequestError(404, `unknown session '${params(req)['id']}'`);
      return { training_run_ids: s.trainingRunIds, sampler_ids: s.samplerIds };
    }),
  );
}
