// The official MCP memory server (@modelcontextprotocol/server-memory, from npm) with a private memory file, so two
// runs (or a per-trajectory connection's processes) never share a graph. The file is removed when the process ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'mcp-memory-'));
process.env.MEMORY_FILE_PATH = join(dir, 'memory.jsonl');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
process.stdin.on('end', () => process.exit(0)); // the client closed the connection
await import('@modelcontextprotocol/server-memory/dist/index.js');
