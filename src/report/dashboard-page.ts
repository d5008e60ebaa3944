import { TRAJECTORY_CSS } from './trajectory-html.js';

/** The dashboard's single page: charts (server-rendered SVG) refreshed on server-sent `update` events, and a trajectory viewer. */
export const DASHBOARD_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>agentrl dashboard</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f6;color:#222}
header{background:#222;color:#eee;padding:8px 16px;display:flex;gap:16px;align-items:center}
header .live{font-size:12px;color:#8f8}
main{padding:12px 16px}
.charts{display:flex;flex-wrap:wrap;gap:10px}
.charts img{background:#fff;border:1px solid #ddd;width:440px}
.viewer{display:flex;gap:12px;margin-top:16px}
.viewer .list{min-width:300px;max-width:340px}
.viewer .list button{display:block;width:100%;text-align:left;margin:2px 0;padding:4px 6px;border:1px solid #ccc;background:#fff;cursor:pointer;font-size:12px}
.viewer .list button.sel{background:#e8eefc;border-color:#4a78c2}
.viewer .detail{flex:1;min-width:0}
select{margin-right:8px}
${TRAJECTORY_CSS}
</style></head>
<body>
<header><strong>agentrl dashboard</strong><span id="runs"></span><span class="live" id="live">connecting…</span></header>
<main>
<h2>Curves</h2>
<div class="charts" id="charts"></div>
<h2>Trajectories</h2>
<div><label>run <select id="run"></select></label><label>step <select id="step"></select></label></div>
<div class="viewer"><div class="list" id="list"></div><div class="detail" id="detail"><p>Pick a trajectory.</p></div></div>
</main>
<script>
let version = 0;
const $ = (id) => document.getElementById(id);
async function json(url) { const r = await fetch(url); if (!r.ok) throw new Error(url + ': ' + r.status); return r.json(); }
async function refreshCharts() {
  const charts = await json('/api/charts');
  $('charts').innerHTML = charts.map((c) => '<img alt="' + c.title + '" data-chart="' + c.name + '" src="/api/charts/' + c.name + '.svg?v=' + version + '">').join('');
}
async function refreshRuns() {
  const runs = await json('/api/runs');
  $('runs').textContent = runs.map((r) => r.name + ' (' + r.steps + ' steps)').join(' · ');
  const sel = $('run'); const cur = sel.value;
  sel.innerHTML = runs.map((r) => '<option value="' + r.index + '">' + r.name + '</option>').join('');
  if (cur !== '') sel.value = cur;
  await refreshSteps();
}
async function refreshSteps() {
  const run = $('run').value; if (run === '') return;
  const steps = await json('/api/runs/' + run + '/steps');
  const sel = $('step'); const cur = sel.value;
  sel.innerHTML = steps.map((s) => '<option value="' + s + '">' + s + '</option>').join('');
  sel.value = cur !== '' && steps.includes(Number(cur)) ? cur : String(steps[steps.length - 1] ?? '');
  await refreshList();
}
async function refreshList() {
  const run = $('run').value, step = $('step').value; if (run === '' || step === '') { $('list').innerHTML = '<p>No trajectories recorded yet.</p>'; return; }
  const items = await json('/api/runs/' + run + '/trajectories?step=' + step);
  $('list').innerHTML = items.map((t) => '<button data-id="' + t.id + '">' + (t.correct ? '✔' : '✘') + ' ' + t.id + ' · reward ' + t.reward + ' · ' + t.stopReason + ' · ' + t.toolCalls + ' tool call(s)</button>').join('');
  for (const b of $('list').querySelectorAll('button')) b.onclick = () => openTrajectory(b);
}
async function openTrajectory(button) {
  for (const b of $('list').querySelectorAll('button')) b.classList.toggle('sel', b === button);
  const r = await fetch('/api/runs/' + $('run').value + '/trajectory?step=' + $('step').value + '&id=' + encodeURIComponent(button.dataset.id));
  $('detail').innerHTML = await r.text();
}
$('run').onchange = refreshSteps; $('step').onchange = refreshList;
async function refreshAll() { await Promise.all([refreshCharts(), refreshRuns()]); document.body.dataset.version = String(version); }
refreshAll();
const es = new EventSource('/api/events');
es.addEventListener('update', (e) => { version = Number(e.data); $('live').textContent = 'live · updated ' + new Date().toLocaleTimeString(); refreshAll(); });
es.onopen = () => { $('live').textContent = 'live'; };
es.onerror = () => { $('live').textContent = 'reconnecting…'; };
</script>
</body></html>`;
