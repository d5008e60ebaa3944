export { stripDapoTemplate, dapoRowToExample } from './dapo.js';
export { readJsonl, readParquet, loadMathDataset, loadDataset, type LoadDatasetOptions } from './loaders.js';
export { exampleIssues } from './validate.js';
export { presetRowToExample, gsm8kFinalAnswer, DATASET_PRESETS, type DatasetPreset } from './presets.js';
