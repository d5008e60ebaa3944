import { dirname, join } from './path.browser.js';
import { memoryStorage, type RunStorage } from './storage.js';

/** A {@link RunStorage} whose changes are also written somewhere that outlives the page; see {@link indexedDbStorage}. */
export interface PersistentStorage extends RunStorage {
  /**
   * Resolves once every change made so far is stored durably (IndexedDB transactions complete). Rejects with the
   * first write that failed since the last `flush` (the browser's `DOMException`, e.g. `QuotaExceededError`); the
   * in-memory view keeps the change either way.
   */
  flush(): Promise<void>;
  /** Waits for {@link PersistentStorage.flush}, then closes the database (later changes stay in memory only). */
  close(): Promise<void>;
}

/** Options of {@link indexedDbStorage}. */
export interface IndexedDbStorageOptions {
  /** Name of the IndexedDB database (one per origin and name). @default 'agentrl' */
  readonly database?: string;
  /**
   * The folder whose files persist. Paths outside it are read from and written to `base` and are not persisted:
   * with `root: '/runs'` the bundled model files and checkpoints mounted from URLs stay in memory. @default '/'
   */
  readonly root?: string;
  /** Where paths outside `root` go. @default a new `memoryStorage()` */
  readonly base?: RunStorage;
}

// The slice of the IndexedDB API used here (the package compiles without the DOM library).
interface Req<T> {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface OpenReq extends Req<Db> {
  onupgradeneeded: (() => void) | null;
  onblocked: (() => void) | null;
}
interface Store {
  put(v: unknown, k: string): void;
  delete(k: unknown): void;
  getAll(): Req<unknown[]>;
  getAllKeys(): Req<string[]>;
}
interface Tx {
  objectStore(n: string): Store;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  error: unknown;
}
interface Db {
  transaction(s: string[], m: 'readonly' | 'readwrite'): Tx;
  createObjectStore(n: string): void;
  objectStoreNames: { contains(n: string): boolean };
  close(): void;
}
interface Factory {
  open(name: string, version: number): OpenReq;
}
interface KeyRange {
  bound(lo: string, hi: string): unknown;
}

const FILES = 'files';
const DIRS = 'dirs';
const norm = (p: string) => join('/', p);
const under = (root: string, p: string) => p === root || root === '/' || p.startsWith(`${root}/`);
const done = (req: Req<unknown>) =>
  new Promise<void>((ok, fail) => {
    req.onsuccess = () => ok();
    req.onerror = () => fail(req.error);
  });

/**
 * A {@link RunStorage} kept in IndexedDB, so a page's runs (logs, trajectories, checkpoints) survive a reload: every
 * file under `root` is loaded into memory when the storage opens (reads stay synchronous, as the library needs), and
 * every change is applied in memory at once and written to the database in the order made, one transaction per
 * change. Call {@link PersistentStorage.flush} before relying on a reload (the page's `pagehide`, a run's end).
 * Database layout (version 1): object store `files` (path → `Uint8Array`) and `dirs` (folder path → 1), paths POSIX
 * and absolute. Two storages open on the same database do not see each other's changes until reopened.
 * @example useStorage(await indexedDbStorage({ database: 'my-app', root: '/runs', base: currentStorage() }));
 * @throws Error when the environment has no `indexedDB`; rejects with the browser's `DOMException` when the
 * database cannot be opened or read.
 */
export async function indexedDbStorage(options: IndexedDbStorageOptions = {}): Promise<PersistentStorage> {
  const g = globalThis as unknown as { indexedDB?: Factory; IDBKeyRange?: KeyRange };
  const idb = g.indexedDB;
  const range = g.IDBKeyRange;
  if (idb === undefined || range === undefined) throw new Error('indexedDbStorage: this environment has no IndexedDB (a browser page or Web Worker has)');
  const root = norm(options.root ?? '/');
  const base = options.base ?? memoryStorage();

  const opening = idb.open(options.database ?? 'agentrl', 1);
  opening.onupgradeneeded = () => {
    for (const s of [FILES, DIRS]) if (!opening.result.objectStoreNames.contains(s)) opening.result.createObjectStore(s);
  };
  await done(opening);
  const db = opening.result;

  // Load everything under root.
  const mem = memoryStorage();
  mem.mkdir(root);
  {
    const tx = db.transaction([FILES, DIRS], 'readonly');
    const dirKeys = tx.objectStore(DIRS).getAllKeys();
    const fileKeys = tx.objectStore(FILES).getAllKeys();
    const fileData = tx.objectStore(FILES).getAll();
    await Promise.all([done(dirKeys), done(fileKeys), done(fileData)]);
    for (const d of dirKeys.result) if (under(root, d)) mem.mkdir(d);
    fileKeys.result.forEach((k, i) => {
      if (under(root, k)) mem.write(k, fileData.result[i] as Uint8Array);
    });
  }

  let open = true;
  let pending = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  /** Queues one readwrite transaction; IndexedDB runs overlapping readwrite transactions in the order created. */
  const persist = (fill: (files: Store, dirs: Store) => void) => {
    if (!open) return;
    const tx = db.transaction([FILES, DIRS], 'readwrite');
    fill(tx.objectStore(FILES), tx.objectStore(DIRS));
    const p = new Promise<void>((ok) => {
      tx.oncomplete = () => ok();
      tx.onerror = tx.onabort = () => {
        failure ??= { error: tx.error };
        ok();
      };
    });
    pending.add(p);
    void p.then(() => pending.delete(p));
  };
  /** Folders from `p` up to (and with) root. */
  const foldersUp = (p: string): string[] => {
    const out: string[] = [];
    for (let d = p; under(root, d); d = dirname(d)) {
      out.push(d);
      if (d === root) break;
    }
    return out;
  };
  const deleteUnder = (s: Store, p: string) => {
    s.delete(p);
    s.delete(range.bound(p === '/' ? '/' : `${p}/`, `${p === '/' ? '' : p}/\uffff`));
  };
  /** Every folder and file under `p` in memory (folders found by listing). */
  const walk = (p: string, dirs: string[], files: string[]) => {
    if (mem.read(p) !== undefined) return void files.push(p);
    if (!mem.isDir(p)) return;
    dirs.push(p);
    for (const e of mem.list(p)) walk(join(p, e.name), dirs, files);
  };
  /** Writes the subtree at `p` as memory holds it now (after deleting what the database had there). */
  const persistSubtree = (...paths: string[]) =>
    persist((files, dirs) => {
      for (const p of paths) {
        deleteUnder(files, p);
        deleteUnder(dirs, p);
        const ds: string[] = [];
        const fs: string[] = [];
        walk(p, ds, fs);
        for (const d of ds) dirs.put(1, d);
        for (const f of fs) files.put(mem.read(f), f);
      }
      for (const d of foldersUp(dirname(paths[paths.length - 1]!))) dirs.put(1, d);
    });

  const inside = (p: string) => under(root, norm(p));
  /** True when root lies strictly below `p` (so `p` is a folder of `base` that also leads to root). */
  const aboveRoot = (p: string) => {
    const n = norm(p);
    return n !== root && under(n, root);
  };

  const storage: PersistentStorage = {
    read: (path) => (inside(path) ? mem.read(path) : base.read(path)),
    write(path, data) {
      if (!inside(path)) return base.write(path, data);
      const p = norm(path);
      mem.write(p, data);
      persist((files, dirs) => {
        files.put(data, p);
        for (const d of foldersUp(dirname(p))) dirs.put(1, d);
      });
    },
    isDir: (path) => (inside(path) ? mem.isDir(path) : aboveRoot(path) || base.isDir(path)),
    mkdir(path) {
      if (!inside(path)) return base.mkdir(path);
      mem.mkdir(path);
      persist((_, dirs) => {
        for (const d of foldersUp(norm(path))) dirs.put(1, d);
      });
    },
    list(path) {
      if (inside(path)) return mem.list(path);
      const entries = base.isDir(path) ? base.list(path) : [];
      if (!aboveRoot(path)) return entries;
      const n = norm(path);
      const next = root.slice(n === '/' ? 1 : n.length + 1).split('/')[0]!;
      const merged = new Map(entries.map((e) => [e.name, e.dir]));
      merged.set(next, true);
      return [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, dir]) => ({ name, dir }));
    },
    remove(path) {
      const p = norm(path);
      if (inside(p)) {
        mem.remove(p);
        if (p === root) mem.mkdir(root);
        return persist((files, dirs) => {
          deleteUnder(files, p);
          deleteUnder(dirs, p);
        });
      }
      base.remove(p);
      if (aboveRoot(p)) storage.remove(root);
    },
    rename(from, to) {
      const a = norm(from);
      const b = norm(to);
      if (inside(a) && inside(b)) {
        mem.rename(a, b);
        return persistSubtree(a, b);
      }
      if (!inside(a) && !inside(b) && !aboveRoot(a) && !aboveRoot(b)) return base.rename(a, b);
      // Across the boundary: copy the files over, then delete the source.
      const moved = [...storage.files()].filter(([p]) => p === a || p.startsWith(`${a}/`));
      storage.remove(b);
      if (storage.isDir(a)) storage.mkdir(b);
      for (const [p, data] of moved) storage.write(b + p.slice(a.length), data);
      storage.remove(a);
    },
    files() {
      const out = new Map([...base.files()].filter(([p]) => !under(root, p)));
      for (const [p, data] of mem.files()) out.set(p, data);
      return out;
    },
    async flush() {
      while (pending.size > 0) await Promise.all([...pending]);
      const f = failure;
      failure = undefined;
      if (f !== undefined) throw f.error;
    },
    async close() {
      try {
        await storage.flush();
      } finally {
        open = false;
        pending = new Set();
        db.close();
      }
    },
  };
  return storage;
}
