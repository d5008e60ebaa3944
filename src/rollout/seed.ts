/** Derives a 32-bit seed for one sampling call from a base seed and integer coordinates (FNV-1a mix). */
export function deriveSeed(base: number | undefined, ...coords: number[]): number | undefined {
  if (base === undefined) return undefined;
  let h = (0x811c9dc5 ^ (base >>> 0)) >>> 0;
  for (const c of coords) {
    h ^= c >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
