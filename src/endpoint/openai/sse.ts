import type { FastifyReply } from 'fastify';

/**
 * Server-sent events as OpenAI streams them: `data: <json>\n\n` per chunk, then `data: [DONE]\n\n`.
 * Takes over the raw response (Fastify no longer serialises it).
 */
export class SseWriter {
  readonly #reply: FastifyReply;
  constructor(reply: FastifyReply) {
    this.#reply = reply;
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  }
  /** Sends one chunk. */
  send(chunk: unknown): void {
    this.#reply.raw.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  /** Sends one named event, `event: <name>\ndata: <json>\n\n` (the Responses and Anthropic Messages streams). */
  event(name: string, data: unknown): void {
    this.#reply.raw.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  /** Ends the response without `[DONE]` (streams of named events end with their own last event). */
  end(): void {
    this.#reply.raw.end();
  }
  /** Sends `[DONE]` and ends the response. */
  done(): void {
    this.#reply.raw.end('data: [DONE]\n\n');
  }
}
