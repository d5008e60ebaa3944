/**
 * The file system the library writes run logs, checkpoints and eval output to, and reads model files from. In Node this
 * is the real file system (`node:fs`); a browser build swaps this module for `fs.browser.ts`, which keeps the same
 * names over a {@link RunStorage} (in memory by default). Import file functions from here, never from `node:fs`, in
 * any module the `agentrl/browser` entry reaches.
 */
export { access, appendFile, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
export { existsSync, readFileSync } from 'node:fs';
