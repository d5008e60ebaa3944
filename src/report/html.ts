/**
 * The one place where run data becomes HTML. Every value interpolated into {@link html} is escaped unless it is
 * itself the output of {@link html}; nothing from a run file, a folder name or a metric key reaches a page any
 * other way (the dashboard's script writes data with `textContent` only).
 */

/** A fragment of HTML built by {@link html}: its text is markup, safe to insert. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes any value for HTML element content and quoted attribute values (`null`/`undefined` → empty). */
export function escapeHtml(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

type Interpolated = SafeHtml | string | number | boolean | null | undefined | readonly Interpolated[];

function part(v: Interpolated): string {
  if (v instanceof SafeHtml) return v.toString();
  if (Array.isArray(v)) return v.map(part).join('');
  return escapeHtml(v);
}

/**
 * Tagged template for HTML: `html\`<td>${name}</td>\`` escapes `name`; arrays are joined, each item escaped
 * unless it is a {@link SafeHtml}. Interpolate only into element content or double-quoted attribute values.
 */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolated[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += part(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}
