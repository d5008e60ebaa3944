/**
 * One dataset item: a question and its reference answer.
 * `meta` carries source-specific fields (data source, difficulty, gold SQL, aliases …).
 */
export interface Example {
  /** Stable id, unique within a dataset. */
  readonly id: string;
  /** The task as shown to the model (already stripped of any dataset answer template). */
  readonly question: string;
  /** Reference answer (LaTeX for math, text for QA, SQL for text-to-SQL). */
  readonly answer: string;
  /** Source-specific fields (data source, difficulty, gold SQL, aliases …); rewards and environments may read them. */
  readonly meta?: Readonly<Record<string, unknown>>;
}
