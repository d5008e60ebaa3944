import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The shipped example database (`examples/sql-agent/data/countries.sqlite`), as bytes and as a path. */
export const DB_PATH = fileURLToPath(new URL('../../../examples/sql-agent/data/countries.sqlite', import.meta.url));
export const DB_BYTES: Uint8Array = readFileSync(DB_PATH);

/** A query that never ends on its own. */
export const RUNAWAY_SQL = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c';
