export { plotRuns, type PlotResult } from './plot.js';
export { startDashboard, type Dashboard, type DashboardOptions } from './dashboard-server.js';
export { readRun, type RunData, type MetricsRow } from './run-data.js';
export { RUN_CHARTS, chartSpec, type ChartDef } from './charts.js';
