import type { Message } from '../types/message.js';
import type { TrajectoryRecord } from '../trainer/trajectory-log.js';

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function toolCallText(args: Readonly<Record<string, unknown>>): string {
  const code = args['code'];
  return typeof code === 'string' ? code : JSON.stringify(args, null, 2);
}

function messageHtml(m: Message): string {
  switch (m.role) {
    case 'system':
      return `<details class="msg system"><summary>system prompt</summary><pre>${escapeHtml(m.content)}</pre></details>`;
    case 'user':
      return `<div class="msg user"><div class="role">user</div><pre>${escapeHtml(m.content)}</pre></div>`;
    case 'assistant': {
      const calls = (m.toolCalls ?? [])
        .map((c) => `<div class="tool-call"><div class="role">tool call · ${escapeHtml(c.function.name)}</div><pre>${escapeHtml(toolCallText(c.function.arguments))}</pre></div>`)
        .join('');
      return `<div class="msg assistant"><div class="role">assistant</div><pre>${escapeHtml(m.content)}</pre>${calls}</div>`;
    }
    case 'tool':
      return `<div class="msg tool"><div class="role">${escapeHtml(m.name ?? 'tool')} output</div><pre>${escapeHtml(m.content)}</pre></div>`;
    default:
      return '';
  }
}

/**
 * One recorded trajectory as HTML: a header (reward, correct, stop reason, advantage), the conversation with tool
 * calls and interpreter output marked as such, and the token view where trained tokens (mask 1) and masked tokens
 * (prompt, tool output; mask 0) are styled differently (`.trained` / `.masked`). Styles: {@link TRAJECTORY_CSS}.
 */
export function trajectoryHtml(r: TrajectoryRecord): string {
  const adv = r.advantage === null ? 'none' : r.advantage.toFixed(3);
  const header =
    `<div class="traj-head"><span class="badge ${r.correct ? 'ok' : 'bad'}">reward ${r.reward}</span>` +
    `<span>correct: ${r.correct}</span><span>stop: ${escapeHtml(r.stopReason)}</span><span>advantage: ${adv}</span>` +
    `<span>tool calls: ${r.toolCalls}</span><span>turns: ${r.turns}</span>` +
    `<span>answer: ${escapeHtml(r.answer ?? '—')} (gold ${escapeHtml(r.gold)})</span></div>`;
  const convo = `<div class="convo">${r.messages.map(messageHtml).join('')}</div>`;
  const tokens = r.segments
    .map((s) => `<span class="seg ${s.mask === 1 ? 'trained' : 'masked'} ${s.kind}" title="${s.kind}, ${s.tokens} tokens, mask ${s.mask}">${escapeHtml(s.text)}</span>`)
    .join('');
  return (
    `<article class="trajectory" data-id="${escapeHtml(r.id)}">${header}` +
    `<h4>Conversation</h4>${convo}` +
    `<h4>Tokens <small>(<span class="seg trained">trained, mask 1</span> · <span class="seg masked">masked, mask 0</span>)</small></h4>` +
    `<pre class="tokens">${tokens}</pre></article>`
  );
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
