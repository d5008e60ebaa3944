/**
 * `user_metadata` of a saved checkpoint (Tinker SDK ≥ 0.26: `SaveWeightsRequest.user_metadata` and
 * `SaveWeightsForSamplerRequest.user_metadata`, `Optional[dict[str, str]]`, read back as `Checkpoint.user_metadata`;
 * `src/tinker/types/save_weights_for_sampler_request.py` and the SDK's API reference). Kept beside the checkpoint's
 * files as `user_metadata.json`, which is not part of its archive.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** Most entries one checkpoint keeps. */
export const MAX_METADATA_ENTRIES = 64;
/** Longest key, characters. */
export const MAX_METADATA_KEY_CHARS = 128;
/** Longest value, characters. */
export const MAX_METADATA_VALUE_CHARS = 1024;

/** `dict[str, str]` within this server's limits: at most 64 entries, keys of 1–128 and values of ≤ 1,024 characters. */
export const userMetadataSchema = z
  .record(z.string().min(1).max(MAX_METADATA_KEY_CHARS), z.string().max(MAX_METADATA_VALUE_CHARS))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_ENTRIES, { message: `at most ${MAX_METADATA_ENTRIES} entries` });

const FILE = 'user_metadata.json';

/** Writes `meta` beside the checkpoint in `dir`, or removes an earlier one when there is none (an overwrite without metadata). */
export async function writeCheckpointMetadata(dir: string, meta: Readonly<Record<string, string>> | null | undefined): Promise<void> {
  if (meta == null || Object.keys(meta).length === 0) await rm(join(dir, FILE), { force: true });
  else await writeFile(join(dir, FILE), JSON.stringify(meta));
}

/** The metadata saved with the checkpoint in `dir`; `undefined` when there is none or the file does not parse as one. */
export async function readCheckpointMetadata(dir: string): Promise<Record<string, string> | undefined> {
  const text = await readFile(join(dir, FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = userMetadataSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
