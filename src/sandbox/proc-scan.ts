import { readdirSync, readFileSync } from 'node:fs';

/** Pids of live (non-zombie) processes on this machine whose argv contains `marker`. Linux only. */
export function processesWithMarker(marker: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
      if (cmd.includes(marker)) out.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}
