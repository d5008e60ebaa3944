/**
 * The model's final SQL in a reply: the LAST of, by position, a fenced ```sql block (closing fence optional at the
 * very end), a `<sql>…</sql>` block, or a `<solution>…</solution>` block (SkyRL-SQL). Trimmed, trailing `;` removed.
 * `undefined` when there is none or it is empty. Plain fenced blocks without the `sql` tag do not count.
 */
export function extractFinalSql(text: string): string | undefined {
  let best: { pos: number; sql: string } | undefined;
  const consider = (re: RegExp) => {
    for (const m of text.matchAll(re)) {
      if (m.index !== undefined && (!best || m.index >= best.pos)) best = { pos: m.index, sql: m[1] ?? '' };
    }
  };
  consider(/```sql[^\S\n]*\n?([\s\S]*?)(?:```|$)/gi);
  consider(/<sql>([\s\S]*?)<\/sql>/gi);
  consider(/<solution>([\s\S]*?)<\/solution>/gi);
  const sql = best?.sql.trim().replace(/;\s*$/, '').trim();
  return sql ? sql : undefined;
}
