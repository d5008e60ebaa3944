import type { Message } from '../types/message.js';
import type { TrajectoryRecord } from '../trainer/trajectory-log.js';
import { html, type SafeHtml } from './html.js';

export { escapeHtml } from './html.js';

function toolCallText(args: unknown): string {
  const code = args !== null && typeof args === 'object' ? (args as Record<string, unknown>)['code'] : undefined;
  if (typeof code === 'string') return code;
  return typeof args === 'string' ? args : (JSON.stringify(args, null, 2) ?? '');
}

// Records come from a file anyone may have written: every field is read defensively and escaped by `html`.
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
const field = (o: unknown, k: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined);

function messageHtml(m: unknown): SafeHtml {
  const content = text(field(m, 'content'));
  switch (field(m, 'role') as Message['role'] | undefined) {
    case 'system':
      return html`<details class="msg system"><summary>system prompt</summary><pre>${content}</pre></details>`;
    case 'user':
      return html`<div class="msg user"><div class="role">user</div><pre>${content}</pre></div>`;
    case 'assistant': {
      const calls = list(field(m, 'toolCalls')).map((c) => {
        const fn = field(c, 'function');
        return html`<div class="tool-call"><div class="role">tool call · ${text(field(fn, 'name'))}</div><pre>${toolCallText(field(fn, 'arguments'))}</pre></div>`;
      });
      return html`<div class="msg assistant"><div class="role">assistant</div><pre>${content}</pre>${calls}</div>`;
    }
    case 'tool':
      return html`<div class="msg tool"><div class="role">${text(field(m, 'name')) || 'tool'} output</div><pre>${content}</pre></div>`;
    default:
      return html``;
  }
}

const SEGMENT_KINDS = new Set(['prompt', 'completion', 'observation']);

/**
 * One recorded trajectory as HTML: a header (reward, correct, stop reason, advantage), the conversation with tool
 * calls and interpreter output marked as such, and the token view where trained tokens (mask 1) and masked tokens
 * (prompt, tool output; mask 0) are styled differently (`.trained` / `.masked`). Styles: {@link TRAJECTORY_CSS}.
 * Every value is escaped (see `html`), whatever its type in the file.
 */
export function trajectoryHtml(r: TrajectoryRecord): string {
  const adv = typeof r.advantage === 'number' ? r.advantage.toFixed(3) : 'none';
  const ok = r.correct === true;
  const header = html`<div class="traj-head"><span class="badge ${ok ? 'ok' : 'bad'}">reward ${text(r.reward)}</span><span>correct: ${text(r.correct)}</span><span>stop: ${text(r.stopReason)}</span><span>advantage: ${adv}</span><span>tool calls: ${text(r.toolCalls)}</span><span>turns: ${text(r.turns)}</span><span>answer: ${r.answer === undefined ? '—' : text(r.answer)} (gold ${text(r.gold)})</span></div>`;
  const convo = list(r.messages).map(messageHtml);
  const tokens = list(r.segments).map((s) => {
    const kind = text(field(s, 'kind'));
    const trained = field(s, 'mask') === 1;
    const cls = `seg ${trained ? 'trained' : 'masked'}${SEGMENT_KINDS.has(kind) ? ` ${kind}` : ''}`;
    return html`<span class="${cls}" title="${kind}, ${text(field(s, 'tokens'))} tokens, mask ${trained ? 1 : 0}">${text(field(s, 'text'))}</span>`;
  });
  return html`<article class="trajectory" data-id="${text(r.id)}">${header}<h4>Conversation</h4><div class="convo">${convo}</div><h4>Tokens <small>(<span class="seg trained">trained, mask 1</span> · <span class="seg masked">masked, mask 0</span>)</small></h4><pre class="tokens">${tokens}</pre></article>`.toString();
}

/** Styles for {@link trajectoryHtml}, shared by the HTML report and the dashboard. */
export const TRAJECTORY_CSS = `
.trajectory{border:1px solid #ddd;border-radius:6px;padding:10px;margin:10px 0;background:#fff}
.traj-head{display:flex;flex-wrap:wrap;gap:12px;font-size:13px;margin-bottom:6px}
.badge{padding:1px 8px;border-radius:10px;color:#fff}.badge.ok{background:#2a8f4a}.badge.bad{background:#b33}
.msg{margin:6px 0;padding:6px 8px;border-left:4px solid #bbb;background:#fafafa}
.msg.user{border-color:#4a78c2}.msg.assistant{border-color:#7a4ac2}.msg.tool{border-color:#c2884a;background:#fff8ef}
.tool-call{margin-top:6px;border-left:4px solid #2a8f4a;padding-left:6px;background:#f1fbf3}
.role{font-size:11px;text-transform:uppercase;color:#666;letter-spacing:.04em}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px}
.tokens{border:1px solid #eee;padding:6px;max-height:420px;overflow:auto}
.seg.trained{background:#dff3e4;color:#123}.seg.masked{background:#eee;color:#777}
`;
