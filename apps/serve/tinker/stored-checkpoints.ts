import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { readCheckpointMetadata } from './checkpoint-metadata.js';

/** The two kinds of checkpoints of a run, as directory names and as `tinker://` path segments. */
export type CheckpointKind = 'weights' | 'sampler_weights';

/** One saved checkpoint of a run, found on disk. */
export interface StoredCheckpoint {
  readonly kind: CheckpointKind;
  readonly name: string;
  readonly dir: string;
  /** When it was written (mtime of its `config.json`), ms since epoch. */
  readonly time: number;
  /** Bytes of the files an archive of it holds. */
  readonly sizeBytes: number;
  /** `user_metadata` it was saved with (SDK ≥ 0.26), if any. */
  readonly userMetadata?: Readonly<Record<string, string>>;
}

/** Files of a checkpoint that go into its archive: the weights and config; training state also its optimizer. */
export function archiveFiles(kind: CheckpointKind): string[] {
  return kind === 'weights' ? ['config.json', 'model.safetensors', 'optimizer.safetensors'] : ['config.json', 'model.safetensors'];
}

async function sizeOf(dir: string, kind: CheckpointKind): Promise<number | undefined> {
  let total = 0;
  for (const f of archiveFiles(kind)) {
    const s = await stat(join(dir, f)).catch(() => undefined);
    if (s === undefined) {
      if (f === 'config.json' || f === 'model.safetensors') return undefined;
      continue;
    }
    total += s.size;
  }
  return total;
}

/** The checkpoints of run `runId` under `stateDir` (`<stateDir>/<runId>/<kind>/<name>/`), oldest first. Incomplete ones are skipped. */
export async function listStoredCheckpoints(stateDir: string, runId: string): Promise<StoredCheckpoint[]> {
  const out: StoredCheckpoint[] = [];
  for (const kind of ['weights', 'sampler_weights'] as const) {
    const base = join(stateDir, runId, kind);
    const names = await readdir(base).catch(() => [] as string[]);
    for (const name of names) {
      const dir = join(base, name);
      const size = await sizeOf(dir, kind);
      if (size === undefined) continue;
      const { mtimeMs } = await stat(join(dir, 'config.json'));
      const userMetadata = await readCheckpointMetadata(dir);
      out.push({ kind, name, dir, time: mtimeMs, sizeBytes: size, ...(userMetadata ? { userMetadata } : {}) });
    }
  }
  return out.sort((a, b) => a.time - b.time || a.name.localeCompare(b.name));
}

/** Removes a checkpoint directory. */
export async function removeStoredCheckpoint(c: StoredCheckpoint): Promise<void> {
  await rm(c.dir, { recursive: true, force: true });
}

/**
 * A checkpoint as an uncompressed tar stream (what the Tinker SDK's download helper extracts): its files at the
 * archive root, then an empty `checkpoint_complete` marker, as the hosted service's archives end.
 */
export function checkpointArchive(c: StoredCheckpoint): Readable {
  const pack = tar.pack();
  void (async () => {
    try {
      for (const f of archiveFiles(c.kind)) {
        const path = join(c.dir, f);
        const s = await stat(path).catch(() => undefined);
        if (s === undefined) continue;
        const entry = pack.entry({ name: f, size: s.size, mtime: s.mtime, mode: 0o644 });
        await pipeline(createReadStream(path), entry);
      }
      pack.entry({ name: 'checkpoint_complete', size: 0, mode: 0o644 }, '');
      pack.finalize();
    } catch (e) {
      pack.destroy(e instanceof Error ? e : new Error(String(e)));
    }
  })();
  return pack as unknown as Readable;
}

/** Byte length of {@link checkpointArchive}'s stream (512-byte headers, data padded to 512, two zero blocks at the end). */
export async function archiveSize(c: StoredCheckpoint): Promise<number> {
  const block = (n: number) => Math.ceil(n / 512) * 512;
  let total = 512 + 1024; // checkpoint_complete, end of archive
  for (const f of archiveFiles(c.kind)) {
    const s = await stat(join(c.dir, f)).catch(() => undefined);
    if (s !== undefined) total += 512 + block(s.size);
  }
  return total;
}
