/** The fields every dataset item has (the part of {@link Example} that does not depend on `Meta`). */
export interface ExampleFields {
  /** Stable id, unique within a dataset. */
  readonly id: string;
  /** The task as shown to the model (already stripped of any dataset answer template). */
  readonly question: string;
  /** Reference answer (LaTeX for math, text for QA, SQL for text-to-SQL). */
  readonly answer: string;
}

/**
 * One dataset item: a question and its reference answer, and `meta`, the source-specific fields (data source,
 * difficulty, gold SQL, aliases …) that rewards and environments may read.
 *
 * Give `Meta` to type them: `Example<{ country: string; prices: Record<string, number> }>` has a required `meta` of
 * that type, and an environment, reward and trainer built over it (`Environment<E>`, `Reward<E>`,
 * `TrainerOptions<E>`, `ToolContext<E>.example`) read `example.meta.country` without casts. Declare `Meta` with
 * `type` (an object type), not `interface`, so it stays assignable to the untyped `Example`. Without `Meta`, `meta` is
 * an optional record of unknown values.
 */
export type Example<Meta extends object | undefined = undefined> = ExampleFields &
  ([Meta] extends [undefined] ? { readonly meta?: Readonly<Record<string, unknown>> } : { readonly meta: Meta });
