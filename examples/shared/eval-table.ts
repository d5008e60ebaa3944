/** The before/after table the examples print: Average@N, Pass@N, format, valid tool calls, tool calls, turns (same as `agentrl eval`). */
export { evalTable } from 'agentrl';
