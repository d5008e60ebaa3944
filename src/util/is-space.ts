/**
 * Whether the UTF-16 code unit `c` is whitespace as a regular expression's `\s` defines it (ECMAScript WhiteSpace and
 * LineTerminator: tab, LF, VT, FF, CR, space, NBSP, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000,
 * U+FEFF). For character loops that replace `\s`-patterns with linear scans.
 */
export function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}
