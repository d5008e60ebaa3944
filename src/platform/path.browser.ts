/**
 * POSIX path functions for a page's storage (the browser build's stand-in for `node:path`): paths are rooted at `/`,
 * which is also the working directory. Same results as `node:path/posix` for the four functions the library uses.
 */

function normalizeParts(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out;
}

/** Joins segments with `/` and normalises `.`/`..`; `''` joins to `'.'`. */
export function join(...segments: string[]): string {
  const joined = segments.filter((s) => s !== '').join('/');
  if (joined === '') return '.';
  const absolute = joined.startsWith('/');
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  const body = parts.join('/');
  const trailing = joined.endsWith('/') ? '/' : '';
  // As node:path/posix: an empty relative body is '.', and a trailing separator is kept ('./' for join('.', '/')).
  if (absolute) return body === '' ? '/' : `/${body}${trailing}`;
  return (body === '' ? '.' : body) + trailing;
}

/** The absolute path of `segments` resolved right to left from `/`. */
export function resolve(...segments: string[]): string {
  let path = '';
  for (let i = segments.length - 1; i >= 0 && !path.startsWith('/'); i--) if (segments[i]) path = `${segments[i]}/${path}`;
  return `/${normalizeParts(path).join('/')}`;
}

/** The parent folder of `path` (`'/'` for a top-level entry, `'.'` for a bare name), as `node:path/posix` gives it. */
export function dirname(path: string): string {
  if (path.length === 0) return '.';
  const hasRoot = path.startsWith('/');
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === '/') {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else matchedSlash = false;
  }
  if (end === -1) return hasRoot ? '/' : '.';
  if (hasRoot && end === 1) return '//';
  return path.slice(0, end);
}

/** The path from `from` to `to` (both resolved from `/`). */
export function relative(from: string, to: string): string {
  const a = normalizeParts(resolve(from));
  const b = normalizeParts(resolve(to));
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => '..'), ...b.slice(common)].join('/');
}
