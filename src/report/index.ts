export { plotRuns, type PlotResult } from './plot.js';
export { startDashboard, type Dashboard, type DashboardOptions } from './dashboard-server.js';
export { screenshotDashboard, type ScreenshotOptions } from './screenshot.js';
export {
  readRun,
  readTrajectory,
  describeRunWarnings,
  RunIndex,
  type RunData,
  type RunFileWarning,
  type RunReadOptions,
  type MetricsRow,
  type TrajectoryEntry,
} from './run-data.js';
export { scanJsonLines, readJsonRecord, DEFAULT_MAX_RECORD_BYTES, type ScanOptions, type ScanEnd, type SkippedRecord } from './jsonl-stream.js';
export {
  RUN_CHARTS,
  EVAL_FAMILIES,
  AXIS_LABEL_EXPR,
  SPARSE_POINTS,
  chartSpec,
  chartsFor,
  constantCharts,
  evalCharts,
  runLabels,
  wrapLabel,
  type ChartDef,
} from './charts.js';
export { html, escapeHtml, SafeHtml } from './html.js';
export { DASHBOARD_HEADERS, SESSION_COOKIE } from './dashboard-security.js';
export { formatEvalCurve } from './eval-curve.js';
