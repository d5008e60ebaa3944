import { plotRuns } from './src/report/plot.ts';
const t0 = Date.now();
const r = await plotRuns(['/tmp/run-a']);
console.log(r.charts.map(c=>c.name), r.report, Date.now()-t0, 'ms');
