/**
 * Python `json.dumps(v, ensure_ascii=False)` text (separators `", "` and `": "`), which is what Hugging Face chat
 * templates' `tojson` writes; with `indent`, `JSON.stringify`'s layout already matches `json.dumps(v, indent=n)`.
 */
export function pyJsonDumps(v: unknown, indent?: number): string {
  if (indent !== undefined) return JSON.stringify(v, null, indent);
  if (Array.isArray(v)) return `[${v.map((x) => pyJsonDumps(x)).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJsonDumps(x)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
