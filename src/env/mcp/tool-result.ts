import type { McpToolResult } from './types.js';

/** Keeps a string field of a content item only when it is a string. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** One content item as the model reads it: text as is; images, audio and links as a short placeholder. */
function itemText(item: { readonly type: string; readonly [key: string]: unknown }): string {
  switch (item.type) {
    case 'text':
      return str(item.text) ?? '';
    case 'image':
    case 'audio': {
      const bytes = Math.floor(((str(item.data) ?? '').length * 3) / 4);
      return `[${item.type}: ${str(item.mimeType) ?? 'unknown type'}, ${bytes} bytes]`;
    }
    case 'resource': {
      const r = (item.resource ?? {}) as Record<string, unknown>;
      return str(r.text) ?? `[resource: ${str(r.uri) ?? '?'}${str(r.mimeType) ? `, ${str(r.mimeType)}` : ''}]`;
    }
    case 'resource_link':
      return `[resource link: ${str(item.uri) ?? '?'}${str(item.name) ? ` (${str(item.name)})` : ''}]`;
    default:
      return `[${item.type} content]`;
  }
}

/**
 * The observation text of an MCP tool result: its content items (text verbatim, binary items as placeholders)
 * joined by newlines; `structuredContent` as JSON when there is no content (servers send both for the same data,
 * the text being the serialisation of the structure); prefixed `Error: ` when the server flagged `isError`.
 * Not yet bounded: the caller cuts it to the tool-response budget.
 */
export function toolResultText(result: McpToolResult): string {
  const items = Array.isArray(result.content) ? result.content : [];
  let text = items.map(itemText).join('\n');
  if (text.trim() === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text.trim() === '' && !result.isError) text = '(no output)';
  return result.isError ? `Error: ${text.trim() === '' ? 'the tool failed' : text}` : text;
}
