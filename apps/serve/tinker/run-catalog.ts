import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { z } from 'zod';
import { BackendInputError } from 'agentrl/internal';
import { principalTag, type ServeCaller } from './caller.js';
import { listStoredCheckpoints, removeStoredCheckpoint, type CheckpointKind, type StoredCheckpoint } from './stored-checkpoints.js';
import { ServeRequestError } from './errors.js';
import type { FutureBody } from './future-store.js';
import { writeCheckpointMetadata } from './checkpoint-metadata.js';
import { dirBytes, type StateBooking } from './state-folder-bytes.js';
import * as w from './request-schemas.js';

/**
 * A training run as the REST surface reports it; kept after its model is unloaded (its checkpoints stay). Listed only
 * to the principal that created it.
 */
export interface RunRecord {
  readonly id: string;
  readonly sessionId: string;
  /** Who created it (the caller's principal). */
  readonly principal: string;
  readonly baseModel: string;
  readonly lora: z.infer<typeof w.loraConfigSchema> | undefined;
  readonly userMetadata: Readonly<Record<string, unknown>> | undefined;
  lastRequestTime: number;
}

/** A refused submission (a name conflict): the error to throw and the result its consumed `seq_id` answers. */
export interface SubmitRefusal {
  readonly error: ServeRequestError;
  readonly result: FutureBody;
}

/**
 * Training runs and their checkpoints in the state folder: `<stateDir>/<run id>/{weights,sampler_weights}/<name>`,
 * each run folder with an `owner` record (the principal that may load or list what is saved there). Every lookup is
 * scoped to its caller and stays inside the state folder (symbolic links resolved); another's answers 404.
 */
export class RunCatalog {
  readonly #configuredDir: string | undefined;
  readonly #runs = new Map<string, RunRecord>();
  /** `<run>/<kind>/<name>` of every save submitted (reserved before it runs, so a second one conflicts at once). */
  readonly #savedNames = new Set<string>();
  #stateDir: Promise<string> | undefined;
  #ownsStateDir = false;

  /** `stateDir`: where saves go; without it a fresh temporary folder, removed by {@link close}. */
  constructor(stateDir: string | undefined) {
    this.#configuredDir = stateDir;
  }

  /** The state folder (created on first use). */
  stateDir(): Promise<string> {
    if (this.#configuredDir !== undefined) {
      const dir = this.#configuredDir;
      this.#stateDir ??= mkdir(dir, { recursive: true }).then(() => dir);
      return this.#stateDir;
    }
    this.#stateDir ??= mkdtemp(join(tmpdir(), 'agentrl-serve-')).then((d) => {
      this.#ownsStateDir = true;
      return d;
    });
    return this.#stateDir;
  }

  add(run: RunRecord): void {
    this.#runs.set(run.id, run);
  }

  /** Marks run `id` as just used (`last_request_time`). */
  touch(id: string): void {
    const r = this.#runs.get(id);
    if (r) r.lastRequestTime = Date.now();
  }

  /** The runs `caller` created (also unloaded ones), newest first. */
  list(caller: ServeCaller): RunRecord[] {
    return [...this.#runs.values()].filter((r) => r.principal === caller.principal).reverse();
  }

  /** One run of `caller`. @throws ServeRequestError 404 when there is none by that id (or it is another principal's). */
  get(caller: ServeCaller, id: string): RunRecord {
    const r = this.#runs.get(id);
    if (!r || r.principal !== caller.principal) throw new ServeRequestError(404, `unknown training run '${id}'`);
    return r;
  }

  /** Ids of the runs created in session `sessionId`. */
  idsOfSession(sessionId: string): string[] {
    return [...this.#runs.values()].filter((r) => r.sessionId === sessionId).map((r) => r.id);
  }

  /** The session run `id` was created in, if it is known. */
  sessionOf(id: string): string | undefined {
    return this.#runs.get(id)?.sessionId;
  }

  /** Reserves a checkpoint name; with `overwrite: false` an existing one is a 409 (whose no-op result is `existing`). */
  reserveName(runId: string, kind: CheckpointKind, name: string, overwrite: boolean, existing: FutureBody): SubmitRefusal | undefined {
    const key = `${runId}/${kind}/${name}`;
    if (!overwrite && this.#savedNames.has(key)) {
      return { error: new ServeRequestError(409, `checkpoint tinker://${key} already exists (overwrite: false)`), result: existing };
    }
    this.#savedNames.add(key);
    return undefined;
  }

  /** `<stateDir>/<run id>`, created with its owner record. */
  async runDir(runId: string, principal: string): Promise<string> {
    const dir = join(await this.stateDir(), runId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'owner'), principalTag(principal));
    return dir;
  }

  /**
   * Writes checkpoint `<run>/<kind>/<name>` with `save` (given its directory) and its `user_metadata`, and commits
   * the bytes written (less those it replaced) to `booking`.
   */
  async write(
    run: { readonly id: string; readonly principal: string },
    kind: CheckpointKind,
    name: string,
    userMetadata: Readonly<Record<string, string>> | null | undefined,
    booking: StateBooking | undefined,
    save: (dir: string) => Promise<void>,
  ): Promise<void> {
    const dir = join(await this.runDir(run.id, run.principal), kind, name);
    const replaced = await dirBytes(dir);
    await save(dir);
    await writeCheckpointMetadata(dir, userMetadata);
    booking?.commit(await dirBytes(dir), replaced);
  }

  /**
   * The directory of `caller`'s saved training state at a `tinker://<run id>/weights/<name>` path: parsed strictly
   * ({@link w.parseTinkerPath}), inside the state folder, saved by `caller`. `liveOwner`: the principal of a live
   * model by that id (its owner record may not be written yet).
   * @throws ServeRequestError 404 when there is none for `caller`; BackendInputError for a malformed path.
   */
  async resolveState(caller: ServeCaller, path: string, field: string, liveOwner: string | undefined): Promise<string> {
    const p = w.parseTinkerPath(path, field);
    if (p.kind !== 'weights') throw new BackendInputError(field, 'expected a …/weights/<name> path (training state), not sampler weights');
    const root = await realpath(await this.stateDir());
    const notFound = new ServeRequestError(404, `${field}: no saved state at ${path}`);
    if (liveOwner !== undefined ? liveOwner !== caller.principal : (await readOwner(join(root, p.modelId))) !== principalTag(caller.principal)) throw notFound;
    const dir = join(root, p.modelId, 'weights', p.name);
    if (!existsSync(join(dir, 'config.json'))) throw notFound;
    const real = await realpath(dir);
    if (!real.startsWith(root + sep)) throw notFound;
    return real;
  }

  /** Checkpoints of `caller`'s run `id` on disk, oldest first. @throws ServeRequestError 404 for an unknown run. */
  async checkpoints(caller: ServeCaller, id: string): Promise<StoredCheckpoint[]> {
    const run = this.get(caller, id);
    const root = await realpath(await this.stateDir());
    const out: StoredCheckpoint[] = [];
    for (const c of await listStoredCheckpoints(root, run.id)) {
      const real = await realpath(c.dir).catch(() => undefined);
      if (real?.startsWith(root + sep) && real === join(root, run.id, c.kind, c.name)) out.push(c);
    }
    return out;
  }

  /** One checkpoint of `caller` by run, kind and name. @throws ServeRequestError 404 when it does not exist. */
  async checkpoint(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<StoredCheckpoint> {
    const c = (await this.checkpoints(caller, id)).find((x) => x.kind === kind && x.name === name);
    if (!c) throw new ServeRequestError(404, `no checkpoint tinker://${id}/${kind}/${name}`);
    return c;
  }

  /**
   * Deletes a checkpoint of `caller` (its name may be saved again); answers the bytes freed.
   * @throws ServeRequestError 404 when it does not exist.
   */
  async remove(caller: ServeCaller, id: string, kind: CheckpointKind, name: string): Promise<number> {
    const c = await this.checkpoint(caller, id, kind, name);
    const freed = await dirBytes(c.dir);
    await removeStoredCheckpoint(c);
    this.#savedNames.delete(`${id}/${kind}/${name}`);
    return freed;
  }

  /** Removes the state folder when it was a temporary one this catalog made. */
  async close(): Promise<void> {
    if (this.#ownsStateDir && this.#stateDir) await rm(await this.#stateDir, { recursive: true, force: true });
  }
}

async function readOwner(runDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(runDir, 'owner'), 'utf8')).trim();
  } catch {
    return undefined;
  }
}
