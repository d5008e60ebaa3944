/**
 * The demo page: starts the training worker, draws the reward and held-out curves as steps arrive, shows each step's
 * best trajectory with the dashboard's viewer (tokens coloured by loss mask), and lists the runs stored in IndexedDB by
 * earlier visits (Show draws a stored run's curves and last trajectory). Exposes `window.agentrlDemo` (the received
 * messages) for tests.
 */
import type { PageMessage, StoredRun, TrajectoryView, WorkerMessage } from './protocol.js';

interface El {
  textContent: string | null;
  disabled?: boolean;
  value?: string;
  innerHTML?: string;
  content?: unknown;
  hidden?: boolean;
  append(...n: unknown[]): void;
  addEventListener(t: string, f: () => void): void;
  replaceChildren(...n: unknown[]): void;
  getContext?(k: '2d'): Ctx | null;
  width?: number;
  height?: number;
}
interface Ctx {
  clearRect(x: number, y: number, w: number, h: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  stroke(): void;
  fillText(t: string, x: number, y: number): void;
  strokeStyle: string;
  fillStyle: string;
  lineWidth: number;
  font: string;
  arc(x: number, y: number, r: number, a: number, b: number): void;
  fill(): void;
}
const doc = (globalThis as unknown as { document: { getElementById(id: string): El; createElement(t: string): El & { className: string }; head: El } })
  .document;
const $ = (id: string) => doc.getElementById(id);

const rewards: (readonly [number, number])[] = [];
const heldOut: (readonly [number, number])[] = [];
const received: WorkerMessage[] = [];
(globalThis as unknown as { agentrlDemo: unknown }).agentrlDemo = { received, rewards, heldOut };

function draw(canvasId: string, points: readonly (readonly [number, number])[], lo: number, hi: number, colour: string): void {
  const c = $(canvasId);
  const ctx = c.getContext!('2d')!;
  const w = c.width!;
  const h = c.height!;
  ctx.clearRect(0, 0, w, h);
  ctx.strokeStyle = '#ccc';
  ctx.lineWidth = 1;
  ctx.font = '11px sans-serif';
  ctx.fillStyle = '#666';
  for (const v of [lo, (lo + hi) / 2, hi]) {
    const y = h - 20 - ((v - lo) / (hi - lo)) * (h - 30);
    ctx.beginPath();
    ctx.moveTo(30, y);
    ctx.lineTo(w - 5, y);
    ctx.stroke();
    ctx.fillText(v.toFixed(1), 2, y + 4);
  }
  if (points.length === 0) return;
  const maxX = Math.max(5, ...points.map((p) => p[0]));
  const x = (s: number) => 30 + (s / maxX) * (w - 40);
  const y = (v: number) => h - 20 - ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * (h - 30);
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 2;
  ctx.beginPath();
  points.forEach(([s, v], i) => {
    if (i === 0) ctx.moveTo(x(s), y(v));
    else ctx.lineTo(x(s), y(v));
  });
  ctx.stroke();
  for (const [s, v] of points) {
    ctx.beginPath();
    ctx.arc(x(s), y(v), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.fillStyle = '#666';
  ctx.fillText(`step ${maxX}`, w - 50, h - 4);
}

const redraw = () => {
  draw('reward-chart', rewards, -1, 1, '#2563eb');
  draw('heldout-chart', heldOut, 0, 1, '#16a34a');
};
redraw();

const worker = new (
  globalThis as unknown as {
    Worker: new (u: URL, o: { type: 'module' }) => { postMessage(m: PageMessage): void; onmessage: ((e: { data: WorkerMessage }) => void) | null };
  }
).Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
const params = new URLSearchParams((globalThis as unknown as { location: { search: string } }).location.search);
const steps = Number(params.get('steps') ?? 40);
const evalEvery = Number(params.get('evalEvery') ?? 5);

/** Shows a trajectory rendered by the library's `trajectoryHtml` (every field escaped), parsed inert in a template. */
function showTrajectory(v: TrajectoryView): void {
  $('traj-reward').textContent = v.reward.toFixed(0);
  $('traj-step').textContent = String(v.step);
  const t = doc.createElement('template');
  t.innerHTML = v.html;
  $('viewer').replaceChildren(t.content);
}

function showRuns(runs: readonly StoredRun[]): void {
  $('runs').replaceChildren(
    ...runs.map((r) => {
      const o = doc.createElement('option');
      o.value = r.name;
      o.textContent = `${r.name} · ${r.steps} steps · ${r.checkpoints.length > 0 ? r.checkpoints.join(', ') : 'no checkpoint'}`;
      return o;
    }),
  );
  $('load').disabled = runs.length === 0;
  $('stored').hidden = runs.length === 0;
}

worker.onmessage = (e) => {
  const m = e.data;
  received.push(m);
  switch (m.kind) {
    case 'ready': {
      const style = doc.createElement('style');
      style.textContent = m.viewerCss;
      doc.head.append(style);
      showRuns(m.runs);
      break;
    }
    case 'status':
      $('status').textContent = m.text;
      break;
    case 'step': {
      const r = m.metrics['reward/mean'] ?? NaN;
      rewards.push([m.step, r]);
      $('step').textContent = String(m.step);
      $('reward').textContent = r.toFixed(3);
      $('steptime').textContent = `${(m.stepMs / 1000).toFixed(1)} s`;
      redraw();
      break;
    }
    case 'eval':
      heldOut.push([m.step, m.averageAtN]);
      $('heldout').textContent = m.averageAtN.toFixed(3);
      redraw();
      break;
    case 'trajectory':
      showTrajectory(m);
      break;
    case 'run': {
      rewards.splice(0, rewards.length, ...m.rewards);
      heldOut.splice(0, heldOut.length, ...m.heldOut);
      const last = m.rewards[m.rewards.length - 1];
      $('step').textContent = String(last?.[0] ?? 0);
      $('reward').textContent = last === undefined ? '–' : last[1].toFixed(3);
      const held = m.heldOut[m.heldOut.length - 1];
      $('heldout').textContent = held === undefined ? '–' : held[1].toFixed(3);
      $('steptime').textContent = '–';
      $('run-info').textContent =
        `stored run ${m.run.name}: ${m.run.steps} steps, ${m.run.checkpoints.length > 0 ? `checkpoint ${m.run.checkpoints.join(', ')}` : 'no checkpoint'}`;
      if (m.trajectory) showTrajectory(m.trajectory);
      redraw();
      break;
    }
    case 'warning':
      console.warn(m.text);
      break;
    case 'done':
      $('status').textContent = `${m.stopped ? 'stopped' : 'finished'} after ${m.steps} steps`;
      $('run-info').textContent = `stored in this browser as run ${m.run}`;
      $('start').disabled = true;
      $('stop').disabled = true;
      break;
    case 'error':
      $('status').textContent = `error: ${m.message}`;
      break;
  }
};

$('start').addEventListener('click', () => {
  $('start').disabled = true;
  $('stop').disabled = false;
  worker.postMessage({ kind: 'start', steps, evalEvery });
});
$('load').addEventListener('click', () => {
  const name = $('runs').value;
  if (name) worker.postMessage({ kind: 'load', name });
});
$('stop').addEventListener('click', () => {
  $('stop').disabled = true;
  $('status').textContent = 'stopping after this step …';
  worker.postMessage({ kind: 'stop' });
});
