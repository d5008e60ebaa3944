/**
 * Path functions for the paths of {@link ./fs.js}: `node:path` in Node; a browser build swaps in `path.browser.ts`
 * (POSIX paths rooted at `/` of the page's storage).
 */
export { dirname, join, relative, resolve } from 'node:path';
