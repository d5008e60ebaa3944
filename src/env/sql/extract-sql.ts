import { isSpaceCode } from '../../util/is-space.js';
import { tagBlocks } from '../../util/tag-blocks.js';

/** After a ```sql opener: horizontal whitespace and at most one newline are not part of the query. */
function skipFenceLine(text: string, i: number): number {
  let j = i;
  while (j < text.length && text[j] !== '\n' && isSpaceCode(text.charCodeAt(j))) j++;
  return text[j] === '\n' ? j + 1 : j;
}

/**
 * The model's final SQL in a reply: the LAST of, by position, a fenced ```sql block (closing fence optional at the
 * very end), a `<sql>…</sql>` block, or a `<solution>…</solution>` block (SkyRL-SQL). Trimmed, trailing `;` removed.
 * `undefined` when there is none or it is empty. Plain fenced blocks without the `sql` tag do not count.
 * Linear in the length of `text` (no backtracking pattern; see {@link tagBlocks}).
 */
export function extractFinalSql(text: string): string | undefined {
  let best: { pos: number; sql: string } | undefined;
  const consider = (pos: number, sql: string) => {
    if (!best || pos >= best.pos) best = { pos, sql };
  };
  for (const b of tagBlocks(text, '```sql', '```', { ignoreCase: true, unclosed: 'to-end' })) {
    // The fence line's whitespace belongs to the opener (it holds no backtick, so the closing fence is after it).
    consider(b.start, text.slice(skipFenceLine(text, b.contentStart), b.contentEnd));
  }
  for (const b of tagBlocks(text, '<sql>', '</sql>', { ignoreCase: true })) consider(b.start, text.slice(b.contentStart, b.contentEnd));
  for (const b of tagBlocks(text, '<solution>', '</solution>', { ignoreCase: true })) consider(b.start, text.slice(b.contentStart, b.contentEnd));
  let sql = best?.sql.trim() ?? '';
  if (sql.endsWith(';')) sql = sql.slice(0, -1).trim();
  return sql ? sql : undefined;
}
