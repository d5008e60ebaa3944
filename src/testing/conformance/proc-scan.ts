export { processesWithMarker } from '../../sandbox/proc-scan.js';

/** Polls `cond` every 50 ms until it holds or `ms` pass; returns the last value. */
export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
