/** The example's environment and reward: the `search` tool over the one-fact corpus, exact-match reward. */
import { bm25Retriever, exactMatch, httpRetriever, loadCorpus, search, type Environment, type Retriever, type Reward } from 'agentrl';
import { PATHS, TOP_K } from './config.js';

/**
 * The retriever: the embedded BM25 index over `data/facts-corpus.jsonl`, or a Search-R1-compatible `/retrieve`
 * server at `url` (serve the corpus with `createRetrievalServer(bm25Retriever(corpus))`).
 */
export async function makeRetriever(url?: string): Promise<Retriever> {
  return url ? httpRetriever({ url }) : bm25Retriever(await loadCorpus(PATHS.corpus));
}

/** Tool mode: `search` (top-1 passage; calls capped by `BUDGETS.maxToolCalls`), no system prompt (the tiny model learns the protocol in SFT). */
export function searchEnv(retriever: Retriever): Environment {
  return search({ retriever, topK: TOP_K, systemPrompt: null });
}

/** Reward: normalised exact match of the last `<answer>…</answer>`, 1 / 0. */
export function searchReward(): Reward {
  return exactMatch({ correct: 1, wrong: 0 });
}
