export type { CorpusDoc, Passage, Retriever } from './types.js';
export { parseCorpus, loadCorpus, splitTitledContents } from './corpus.js';
export { bm25Retriever, type Bm25RetrieverOptions } from './bm25-retriever.js';
export { httpRetriever, type HttpRetrieverOptions } from './http-retriever.js';
export { createRetrievalServer, type RetrievalServer, type RetrievalServerOptions } from './retrieval-server.js';
export { formatPassages, NO_RESULTS_TEXT } from './format-passages.js';
export { fitCount, truncateHead, HEAD_TRUNCATION_MARKER } from './fit-budget.js';
export { search, SEARCH_TOOL, SEARCH_SYSTEM_PROMPT, type SearchEnvOptions } from './search-env.js';
