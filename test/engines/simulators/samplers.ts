import type { ServeCaller, TinkerService } from '../../../apps/serve/tinker/index.js';
import { innerResult } from './own-futures.js';

/** A sampler checkpoint of a training model: who saved it, and a name of the checkpoint itself (not of an alias). */
export interface SamplerOwner {
  readonly modelId: string;
  readonly checkpoint: string;
}

/**
 * Which training model each sampler reference (a `sampling_session_id` or a `tinker://…/sampler_weights/…` path)
 * belongs to, the newest checkpoint each model saved, and snapshots of a model's weights as they are now (what an
 * engine that does not freeze samplers samples). The base model belongs to no model.
 */
export class SamplerBook {
  readonly #owner = new Map<string, SamplerOwner>();
  readonly #latest = new Map<string, string>();
  readonly #pending = new Set<Promise<unknown>>();
  /** Bumped by every call that changes a model's training weights (optim_step, load). */
  readonly #version = new Map<string, number>();
  readonly #snapshots = new Map<string, { readonly version: number; readonly id: Promise<string> }>();

  constructor(
    private readonly inner: TinkerService,
    private readonly caller: ServeCaller,
  ) {}

  /** Watches the `save_weights_for_sampler` request `requestId` of `modelId`; `then` runs when its result is known. */
  track(modelId: string, requestId: string, then?: (ref: string) => void): void {
    const p = innerResult(this.inner, this.caller, requestId)
      .then((body) => {
        const ref = String(body['sampling_session_id'] ?? body['path']);
        this.#owner.set(ref, { modelId, checkpoint: ref });
        this.#latest.set(modelId, ref);
        then?.(ref);
      })
      .catch(() => undefined)
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** `alias` (a sampling session made from `of`) samples the same checkpoint. */
  alias(alias: string, of: string): void {
    const o = this.#owner.get(of);
    if (o) this.#owner.set(alias, o);
  }

  /** Waits for the saves being watched. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  ownerOf(ref: string | null | undefined): SamplerOwner | undefined {
    return ref == null ? undefined : this.#owner.get(ref);
  }

  /** The newest sampler checkpoint `modelId` saved. */
  latest(modelId: string): string | undefined {
    return this.#latest.get(modelId);
  }

  /** How many times `modelId`'s training weights were changed so far (see {@link touch}). */
  version(modelId: string): number {
    return this.#version.get(modelId) ?? 0;
  }

  /** Marks `modelId`'s training weights as changed. */
  touch(modelId: string): void {
    this.#version.set(modelId, (this.#version.get(modelId) ?? 0) + 1);
  }

  /** A sampling session id with `modelId`'s training weights as they are once its queued requests have run. */
  current(modelId: string): Promise<string> {
    const version = this.#version.get(modelId) ?? 0;
    const cached = this.#snapshots.get(modelId);
    if (cached && cached.version === version) return cached.id;
    const r = this.inner.saveWeightsForSampler({ model_id: modelId, seq_id: null }, this.caller);
    const id = innerResult(this.inner, this.caller, r.request_id).then((b) => String(b['sampling_session_id']));
    this.#snapshots.set(modelId, { version, id });
    return id;
  }
}
