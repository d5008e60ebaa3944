/**
 * Vocabulary of the search environment: corpus documents, retrieved passages and the retriever contract.
 */

/** One corpus row, as stored in a JSONL corpus file: `{ "id", "title", "contents" }` (`contents` excludes the title). */
export interface CorpusDoc {
  /** Stable document id. */
  readonly id: string;
  /** Document title. */
  readonly title: string;
  /** Document body, title excluded. */
  readonly contents: string;
}

/** One retrieved passage. `score` is the retriever's relevance score (higher is better; BM25+ for the embedded index). */
export interface Passage {
  /** Id of the document the passage comes from. */
  readonly id: string;
  /** Title of that document. */
  readonly title: string;
  /** Passage body without the title. */
  readonly text: string;
  /** The retriever's relevance score, higher is better (BM25+ for the embedded index); absent when the retriever gives none. */
  readonly score?: number;
}

/**
 * Anything that ranks passages for queries: the embedded BM25 index, a Search-R1 retrieval server, a custom one.
 * Batched like Search-R1's `/retrieve`: one ranked list per query, in query order, each at most `topK` long.
 * Rejects (e.g. with `RetrieverError`) only on infrastructure faults; an unmatched query yields `[]`.
 */
export interface Retriever {
  /** Ranks passages for each query: one list per query, in query order, each at most `topK` long (best first). Rejects only on infrastructure faults or abort of `signal`. */
  search(queries: readonly string[], topK: number, signal?: AbortSignal): Promise<Passage[][]>;
  /** Releases connections or indexes. Optional. */
  close?(): Promise<void>;
}
