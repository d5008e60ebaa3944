import type { SamplingClient, TrainingBackend } from 'agentrl/internal';
import type { ServeCaller } from './caller.js';
import { ServeRequestError } from './errors.js';
import { newId } from './session-registry.js';
import * as w from './request-schemas.js';

/** A sampling session id or a named sampler path, and whom it belongs to. */
export interface SamplerEntry {
  readonly sampler: SamplingClient;
  readonly principal: string;
  /** The session whose load it counts against (none for a named path sampled directly). */
  readonly sessionId: string | undefined;
  /** The named path or base model this id samples (a `create_sampling_session` alias). */
  readonly aliasOf?: string;
  /** The saved weights it was made from (`create_sampling_session`'s `model_path`), for `GET /samplers/{id}`. */
  readonly modelPath?: string;
}

/**
 * Frozen sampler weight versions and the ids that reach them: unnamed versions (sampling session ids made by
 * `save_weights_for_sampler`), named `tinker://<model>/sampler_weights/<name>` paths, aliases made by
 * `create_sampling_session`, and the base model's weights (shared by everyone, made on first use). A version's
 * weights are released when its last owner forgets it; an alias never releases what it points to.
 */
export class SamplerRegistry {
  readonly #modelName: string;
  readonly #base: TrainingBackend;
  readonly #byId = new Map<string, SamplerEntry>();
  readonly #named = new Map<string, SamplerEntry & { readonly modelId: string }>();
  #baseSampler: Promise<SamplingClient> | undefined;

  constructor(modelName: string, base: TrainingBackend) {
    this.#modelName = modelName;
    this.#base = base;
  }

  /** Distinct weight versions held (unnamed + named), not counting the base model's. */
  versions(): number {
    const versions = new Set<SamplingClient>();
    for (const e of this.#byId.values()) if (e.aliasOf === undefined) versions.add(e.sampler);
    for (const e of this.#named.values()) versions.add(e.sampler);
    return versions.size;
  }

  /** Named paths `caller` saved. */
  pathsOf(caller: ServeCaller): string[] {
    return [...this.#named].filter(([, e]) => e.principal === caller.principal).map(([p]) => p);
  }

  /** Sampling session ids counted against session `sessionId`. */
  idsOfSession(sessionId: string): string[] {
    return [...this.#byId].filter(([, e]) => e.sessionId === sessionId).map(([id]) => id);
  }

  /** `caller`'s sampling session `id`. @throws ServeRequestError 404 when there is none. */
  byId(caller: ServeCaller, id: string): SamplerEntry {
    const e = this.#byId.get(id);
    if (!e || e.principal !== caller.principal) throw new ServeRequestError(404, `unknown sampler '${id}'`);
    return e;
  }

  /**
   * What `ref` samples for `caller`: a sampling session id, a named `tinker://…/sampler_weights/…` path, or the base
   * model name. @throws ServeRequestError 404 when `caller` has nothing by that reference.
   */
  async resolve(ref: string, caller: ServeCaller): Promise<SamplerEntry> {
    const byId = this.#byId.get(ref);
    if (byId) {
      if (byId.principal !== caller.principal) throw this.#unknown(ref);
      return byId;
    }
    if (ref.startsWith('tinker://')) {
      const p = w.parseTinkerPath(ref, 'model_path');
      const named = p.kind === 'sampler_weights' ? this.#named.get(`tinker://${p.modelId}/${p.kind}/${p.name}`) : undefined;
      if (!named || named.principal !== caller.principal) throw new ServeRequestError(404, `model_path: no sampler weights saved at ${ref}`);
      return named;
    }
    if (ref === this.#modelName) {
      this.#baseSampler ??= this.#base.saveWeightsForSampler();
      return { sampler: await this.#baseSampler, principal: caller.principal, sessionId: undefined };
    }
    throw this.#unknown(ref);
  }

  /** Registers `entry` under a new sampling session id and answers it. */
  add(entry: SamplerEntry): string {
    const id = newId('sampler');
    this.#byId.set(id, entry);
    return id;
  }

  /** Registers a named version at `path` (releasing what was there and its aliases). */
  setNamed(path: string, entry: SamplerEntry & { readonly modelId: string }): void {
    this.releaseNamed(path);
    this.#named.set(path, entry);
  }

  /** Forgets an alias id (its target stays). */
  forget(id: string): void {
    this.#byId.delete(id);
  }

  /** Forgets sampling session `id`; frees its weights version unless it is an alias of a named or base sampler. */
  release(id: string): void {
    const e = this.#byId.get(id);
    if (!e) return;
    this.#byId.delete(id);
    if (e.aliasOf === undefined) e.sampler.release?.();
  }

  /** Forgets a named sampler path, its aliases, and frees its weights version. */
  releaseNamed(path: string): void {
    const e = this.#named.get(path);
    if (!e) return;
    this.#named.delete(path);
    for (const [id, a] of this.#byId) if (a.aliasOf === path) this.#byId.delete(id);
    e.sampler.release?.();
  }

  /** Releases every version and the base model's. */
  async close(): Promise<void> {
    for (const id of [...this.#byId.keys()]) this.release(id);
    for (const path of [...this.#named.keys()]) this.releaseNamed(path);
    if (this.#baseSampler) (await this.#baseSampler).release?.();
  }

  #unknown(ref: string): ServeRequestError {
    return new ServeRequestError(
      404,
      `no sampler '${ref}': expected a live sampling_session_id (older unnamed sampler versions are released), a tinker://…/sampler_weights/… path or '${this.#modelName}'`,
    );
  }
}
