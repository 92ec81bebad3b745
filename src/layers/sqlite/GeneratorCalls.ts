import { Effect } from "effect"
import type { StateDb } from "./StateDb.js"

/**
 * The generators' accounting and response cache in state.db (migration
 * 0007_generator_calls, R-GEN-2). Bookkeeping never fails a generation: a
 * cache that cannot be read is a miss, a row that cannot be written is lost.
 */

export type CallOutcome = "ok" | "cached" | "timeout" | "http" | "malformed" | "too-large" | "refused"

export interface CallRecord {
  readonly at: string
  readonly generator: string
  readonly fingerprint: string
  readonly outcome: CallOutcome
  /** HTTP exchanges made (0 for a cache hit, 2 after the one retry). */
  readonly attempts: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly costUsd?: number | undefined
  readonly durationMs: number
}

export interface GeneratorCallStore {
  /** The cached answer (redacted JSON), or undefined. */
  readonly cached: (generator: string, fingerprint: string) => Effect.Effect<string | undefined>
  readonly store: (generator: string, fingerprint: string, response: string, at: string) => Effect.Effect<void>
  readonly record: (call: CallRecord) => Effect.Effect<void>
  /** Totals over every call recorded, for reports and tests. */
  readonly totals: Effect.Effect<{ readonly calls: number; readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number }>
}

export const generatorCallStore = (stateDb: StateDb["Type"]): GeneratorCallStore => ({
  cached: (generator, fingerprint) =>
    Effect.flatMap(stateDb.client, (sql) => sql<{ response: string }>`SELECT response FROM generator_cache WHERE generator = ${generator} AND fingerprint = ${fingerprint}`).pipe(
      Effect.map((rows) => rows[0]?.response),
      Effect.orElseSucceed(() => undefined)
    ),
  store: (generator, fingerprint, response, at) =>
    Effect.flatMap(stateDb.client, (sql) =>
      sql`INSERT OR REPLACE INTO generator_cache (generator, fingerprint, response, created_at) VALUES (${generator}, ${fingerprint}, ${response}, ${at})`
    ).pipe(Effect.ignore),
  record: (call) =>
    Effect.flatMap(stateDb.client, (sql) =>
      sql`INSERT INTO generator_calls ${sql.insert({
        at: call.at,
        generator: call.generator,
        fingerprint: call.fingerprint,
        outcome: call.outcome,
        attempts: call.attempts,
        input_tokens: call.inputTokens,
        output_tokens: call.outputTokens,
        cost_usd: call.costUsd ?? null,
        duration_ms: call.durationMs
      })}`
    ).pipe(Effect.ignore),
  totals: Effect.flatMap(stateDb.client, (sql) =>
    sql<{ calls: number; input: number | null; output: number | null; cost: number | null }>`SELECT count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cost_usd) AS cost FROM generator_calls WHERE outcome <> 'cached'`
  ).pipe(
    Effect.map((rows) => ({ calls: rows[0]?.calls ?? 0, inputTokens: rows[0]?.input ?? 0, outputTokens: rows[0]?.output ?? 0, costUsd: rows[0]?.cost ?? 0 })),
    Effect.orElseSucceed(() => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }))
  )
})
