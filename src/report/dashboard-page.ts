import { TRAJECTORY_CSS } from './trajectory-html.js';

/**
 * The dashboard's single page. No inline script or style (the page is served with a Content-Security-Policy that
 * allows only `/app.js` and `/app.css`); the script writes every value from the runs with `textContent` or as an
 * attribute through the DOM, never as markup. The one server-built fragment it inserts (a trajectory) is made by
 * `trajectoryHtml`, which escapes every field.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>agentrl dashboard</title><link rel="stylesheet" href="/app.css"></head>
<body>
<header><strong>agentrl dashboard</strong><span id="runs"></span><span class="live" id="live">connecting…</span></header>
<main>
<p class="warnings" id="warnings" hidden></p>
<h2>Curves</h2>
<div class="charts" id="charts"></div>
<h2>Trajectories</h2>
<div><label>run <select id="run"></select></label><label>step <select id="step"></select></label></div>
<div class="viewer"><div class="list" id="list"></div><div class="detail" id="detail"><p>Pick a trajectory.</p></div></div>
</main>
<script src="/app.js"></script>
</body></html>`;

/** Styles of {@link DASHBOARD_HTML} (served as `/app.css`). */
export const DASHBOARD_CSS = `
body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f6;color:#222}
header{background:#222;color:#eee;padding:8px 16px;display:flex;flex-wrap:wrap;gap:16px;align-items:baseline}
header .run small{color:#aaa;margin-left:4px}
header .live{font-size:12px;color:#8f8}
main{padding:12px 16px}
.warnings{background:#fff4e0;border:1px solid #e0b060;padding:6px 10px;font-size:13px;white-space:pre-line}
.charts{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.charts img{background:#fff;border:1px solid #ddd;width:440px;max-width:100%;height:auto;display:block}
.charts .chart{position:relative}
.charts .readout{position:absolute;top:4px;right:4px;background:rgba(255,255,255,.95);border:1px solid #999;padding:2px 6px;font-size:12px;pointer-events:none;white-space:pre}
.viewer{display:flex;gap:12px;margin-top:16px}
.viewer .list{min-width:300px;max-width:340px}
.viewer .list button{display:block;width:100%;text-align:left;margin:2px 0;padding:4px 6px;border:1px solid #ccc;background:#fff;cursor:pointer;font-size:12px;overflow-wrap:anywhere}
.viewer .list button.sel{background:#e8eefc;border-color:#4a78c2}
.viewer .detail{flex:1;min-width:0}
select{margin-right:8px;max-width:360px}
${TRAJECTORY_CSS}`;

/** The page's script (served as `/app.js`): data goes into the page as text nodes only. */
export const DASHBOARD_JS = `'use strict';
(() => {
let version = 0;
const $ = (id) => document.getElementById(id);
const el = (tag, props, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, String(v));
  }
  for (const c of children) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
};
const num = (v, d) => (typeof v === 'number' && Number.isFinite(v) ? Number(v.toPrecision(d || 3)).toString() : '—');
async function json(url) { const r = await fetch(url, { credentials: 'same-origin' }); if (!r.ok) throw new Error(url + ': ' + r.status); return r.json(); }
function imagesLoaded() {
  return Promise.all([...$('charts').querySelectorAll('img')].map((i) => (i.complete ? Promise.resolve() : new Promise((res) => { i.onload = i.onerror = res; }))));
}
// Hover: the pointer's x in the SVG's own pixels picks the nearest step of /api/charts/NAME.json; the readout
// shows that step and each series' value there.
function hoverable(img, name) {
  const readout = el('div', { class: 'readout', hidden: '' });
  let steps;
  const load = () => (steps = steps || json('/api/charts/' + encodeURIComponent(name) + '.json?v=' + version).then((r) => r.steps, () => []));
  img.addEventListener('mouseenter', load);
  img.addEventListener('mousemove', async (e) => {
    const all = await load();
    const box = img.getBoundingClientRect();
    if (!all.length || !box.width || !img.naturalWidth) return;
    const x = ((e.clientX - box.left) * img.naturalWidth) / box.width;
    const at = all.reduce((a, b) => (Math.abs(b.x - x) < Math.abs(a.x - x) ? b : a));
    readout.textContent = 'step ' + String(at.step) + at.values.map((v) => '\\n' + String(v.series).replace(/\\n/g, ' ') + ': ' + num(v.value, 4)).join('');
    readout.dataset.step = String(at.step);
    readout.hidden = false;
  });
  img.addEventListener('mouseleave', () => { readout.hidden = true; });
  return el('div', { class: 'chart' }, img, readout);
}
async function refreshCharts() {
  const charts = await json('/api/charts');
  const boxes = charts.map((c) => hoverable(el('img', { alt: String(c.title), src: '/api/charts/' + encodeURIComponent(String(c.name)) + '.svg?v=' + version, dataset: { chart: String(c.name) } }), String(c.name)));
  $('charts').replaceChildren(...boxes);
  await imagesLoaded();
}
async function refreshRuns() {
  const runs = await json('/api/runs');
  $('runs').replaceChildren(...runs.map((r, i) => el('span', { class: 'run' }, (i ? ' · ' : '') + String(r.name), el('small', {}, String(r.detail) + ' · ' + String(r.steps) + ' steps'))));
  const warned = runs.filter((r) => r.skipped > 0);
  $('warnings').hidden = warned.length === 0;
  $('warnings').textContent = warned.map((r) => r.warnings.join('\\n')).join('\\n');
  const sel = $('run'); const cur = sel.value;
  sel.replaceChildren(...runs.map((r) => el('option', { value: String(r.index) }, String(r.name) + ' (' + String(r.detail) + ')')));
  if (cur !== '') sel.value = cur;
  await refreshSteps();
}
async function refreshSteps() {
  const run = $('run').value; if (run === '') return;
  const steps = await json('/api/runs/' + encodeURIComponent(run) + '/steps');
  const sel = $('step'); const cur = sel.value;
  sel.replaceChildren(...steps.map((s) => el('option', { value: String(s) }, String(s))));
  sel.value = cur !== '' && steps.includes(Number(cur)) ? cur : String(steps[steps.length - 1] ?? '');
  await refreshList();
}
async function refreshList() {
  const run = $('run').value, step = $('step').value;
  if (run === '' || step === '') { $('list').replaceChildren(el('p', {}, 'No trajectories recorded yet.')); return; }
  const items = await json('/api/runs/' + encodeURIComponent(run) + '/trajectories?step=' + encodeURIComponent(step));
  // A later pick (or a poll) may have asked for another list while this one was on its way: the newest wins.
  if ($('run').value !== run || $('step').value !== step) return;
  const list = $('list');
  const picked = list.dataset.run === run && list.dataset.step === step ? list.querySelector('button.sel')?.dataset.index : undefined;
  const buttons = items.map((t) => {
    const b = el('button', { dataset: { index: String(t.index), correct: t.correct === true ? '1' : '0' } },
      (t.correct === true ? '✔' : '✘') + ' ' + String(t.id) + ' · reward ' + num(t.reward) + ' · ' + String(t.stopReason ?? '?') + ' · ' + num(t.toolCalls) + ' tool call(s)');
    b.addEventListener('click', () => openTrajectory(b));
    if (picked !== undefined && b.dataset.index === picked) b.classList.add('sel'); // a live update keeps the pick
    return b;
  });
  list.replaceChildren(...buttons);
  Object.assign(list.dataset, { run, step });
}
async function openTrajectory(button) {
  for (const b of $('list').querySelectorAll('button')) b.classList.toggle('sel', b === button);
  const index = button.dataset.index;
  const r = await fetch('/api/runs/' + encodeURIComponent($('run').value) + '/trajectory?step=' + encodeURIComponent($('step').value) + '&index=' + encodeURIComponent(index), { credentials: 'same-origin' });
  // Built on the server by trajectoryHtml, which escapes every field of the record; parsed inert in a template
  // (and the page's CSP runs no inline script or handler even if markup slipped through).
  const t = document.createElement('template');
  t.innerHTML = r.ok ? await r.text() : '<p>No such trajectory.</p>';
  if (!button.classList.contains('sel')) return; // another trajectory was picked meanwhile
  $('detail').replaceChildren(t.content);
  $('detail').dataset.index = index;
}
$('run').addEventListener('change', () => refreshSteps());
$('step').addEventListener('change', () => refreshList());
let refreshing = Promise.resolve();
function refreshAll() {
  refreshing = refreshing.then(() => Promise.all([refreshCharts(), refreshRuns()])).then(
    () => { document.body.dataset.version = String(version); document.body.dataset.ready = '1'; },
    (e) => { $('live').textContent = 'error: ' + String(e && e.message); },
  );
  return refreshing;
}
refreshAll();
function listen() {
  const es = new EventSource('/api/events');
  es.addEventListener('update', (e) => { version = Number(e.data); $('live').textContent = 'live · updated ' + new Date().toLocaleTimeString(); refreshAll(); });
  es.onopen = () => { $('live').textContent = 'live'; };
  es.onerror = () => {
    $('live').textContent = 'reconnecting…';
    // Refused (too many streams) or the server went away: the browser gives up on a closed stream; try again later.
    if (es.readyState === EventSource.CLOSED) setTimeout(listen, 10000);
  };
}
listen();
})();
`;
