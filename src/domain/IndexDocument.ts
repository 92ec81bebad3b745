import { Schema } from "effect"

/**
 * The search projection of one item (spec 04 §1): the only normalized content
 * model. Adapters produce it; IndexStore layers persist and query it.
 */
export const OutlineEntry = Schema.Struct({ depth: Schema.Int, text: Schema.String, slug: Schema.String })

export const IndexDocument = Schema.Struct({
  ref: Schema.String,
  bundle: Schema.String,
  conceptId: Schema.String,
  adapter: Schema.String,
  path: Schema.String,
  files: Schema.Array(Schema.String),
  hash: Schema.String,
  type: Schema.optional(Schema.String),
  name: Schema.String,
  description: Schema.optional(Schema.String),
  tags: Schema.optional(Schema.Array(Schema.String)),
  hints: Schema.optional(Schema.Array(Schema.String)),
  content: Schema.optional(Schema.String),
  aliases: Schema.optional(Schema.Array(Schema.String)),
  quality: Schema.optional(Schema.Literal("curated", "generated", "proposed")),
  beliefState: Schema.optional(Schema.String),
  supersededBy: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  pinned: Schema.optional(Schema.Boolean),
  updated: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  staleAfter: Schema.optional(Schema.String),
  links: Schema.optional(Schema.Array(Schema.String)),
  outline: Schema.optional(Schema.Array(OutlineEntry)),
  bytes: Schema.Int,
  tokens: Schema.optional(Schema.Int),
  extra: Schema.optional(Schema.Unknown)
})
export type IndexDocument = typeof IndexDocument.Type

/** What a diff-persist changed for one bundle (R-IDX-3, R-IDX-7). */
export interface PersistSummary {
  readonly bundle: string
  readonly added: number
  readonly updated: number
  readonly removed: number
  readonly unchanged: number
}
