export { stripDapoTemplate, dapoRowToExample } from './dapo.js';
export { readJsonl, readParquet, loadMathDataset } from './loaders.js';
