/**
 * Finds where the JSON object that starts at `text[start]` ends, honouring strings and escapes, so a
 * `}` or `</tool_call>` inside a JSON string does not end it. Only brace/bracket balance is checked;
 * the caller still runs `JSON.parse` on the slice.
 *
 * @param text - text to scan.
 * @param start - index of the opening `{`.
 * @param budget - optional scan budget shared across calls (characters; decremented per character read): a caller
 *   scanning many candidate `{` in hostile text (the LLM judge's reply) keeps the total cost linear.
 * @returns the index just after the matching `}`, or `-1` when `text[start]` is not `{`, the object
 *   is never closed, or the budget ran out.
 */
export function jsonObjectEnd(text: string, start: number, budget?: { left: number }): number {
  if (text[start] !== '{') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (budget && --budget.left < 0) return -1;
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return c === '}' ? i + 1 : -1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}
