import { invariant } from '../errors/internal-error.js';

/**
 * Finding `open … close` blocks in model output in linear time.
 *
 * Hazard guarded: the obvious `/<sql>([\s\S]*?)<\/sql>/g` rescans to the end of the text from every opening tag
 * that has no closing tag after it, so a reply made of thousands of `<sql>` takes time quadratic in its length (seconds
 * at 100 kB) on the trainer's thread. Here each character is looked at a bounded number of times.
 */

/** One block: offsets are UTF-16 indices into the text. */
export interface TagBlock {
  /** Index of the opening tag. */
  readonly start: number;
  /** Index just after the opening tag. */
  readonly contentStart: number;
  /** Index of the closing tag (the text's length for a block left open with `unclosed: 'to-end'`). */
  readonly contentEnd: number;
  /** Index just after the closing tag. */
  readonly end: number;
}

/** Options of {@link tagBlocks}. */
export interface TagBlockOptions {
  /** Match the tags case-insensitively (as a regular expression's `i` flag does). @default false */
  readonly ignoreCase?: boolean;
  /** An opening tag with no closing tag after it: `'stop'` ends the search; `'to-end'` yields a block up to the end. @default 'stop' */
  readonly unclosed?: 'stop' | 'to-end';
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `indexOf(tag, i)`, case-insensitively if asked (a literal pattern: the match has the tag's length, since tags are
 * ASCII in practice and a case-insensitive literal only matches strings of its own length).
 */
function finder(text: string, tag: string, ignoreCase: boolean): (from: number) => number {
  if (!ignoreCase || tag.toLowerCase() === tag.toUpperCase()) return (from) => text.indexOf(tag, from);
  const re = new RegExp(escapeRegExp(tag), 'gi');
  return (from) => {
    re.lastIndex = from;
    return re.exec(text)?.index ?? -1;
  };
}

/**
 * The blocks of `text` from left to right, as the global lazy pattern `open([\s\S]*?)close` finds them (each block
 * opens at the first `open` after the previous block's end and closes at the first `close` after that), without its
 * cost: when an `open` has no `close` after it, no later one has either, so the search stops there (or, with
 * `unclosed: 'to-end'`, yields a block that runs to the end). Linear in `text.length`.
 * @example [...tagBlocks('a<b>1</b><b>2', '<b>', '</b>')].length === 1
 * @throws InternalError when `open` or `close` is empty (callers pass fixed tags).
 */
export function* tagBlocks(text: string, open: string, close: string, opts: TagBlockOptions = {}): Generator<TagBlock> {
  invariant(open !== '' && close !== '', 'tagBlocks: empty tag');
  const findOpen = finder(text, open, opts.ignoreCase === true);
  const findClose = finder(text, close, opts.ignoreCase === true);
  let from = 0;
  while (from <= text.length) {
    const start = findOpen(from);
    if (start === -1) return;
    const contentStart = start + open.length;
    const contentEnd = findClose(contentStart);
    if (contentEnd === -1) {
      if (opts.unclosed === 'to-end') yield { start, contentStart, contentEnd: text.length, end: text.length };
      return;
    }
    const end = contentEnd + close.length;
    yield { start, contentStart, contentEnd, end };
    from = end;
  }
}

/** `text` with every {@link tagBlocks} block (tags included) removed. Linear in `text.length`. */
export function removeTagBlocks(text: string, open: string, close: string, opts: TagBlockOptions = {}): string {
  let out = '';
  let kept = 0;
  for (const b of tagBlocks(text, open, close, opts)) {
    out += text.slice(kept, b.start);
    kept = b.end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}
