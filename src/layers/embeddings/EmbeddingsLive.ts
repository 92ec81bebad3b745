import { Effect, Layer, Option, Redacted } from "effect"
import { DEFAULT_EMBEDDINGS_KEY, embeddingSpace, type EmbeddingsConfig } from "../../domain/EmbeddingsConfig.js"
import { blobScorer, embeddingText, toBlob } from "../../domain/Vectors.js"
import { Credentials } from "../../services/Credentials.js"
import { Embeddings, type EmbeddingRefresh, type SemanticMatch } from "../../services/Embeddings.js"
import { Progress } from "../../services/Progress.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import type { Connection } from "../sqlite/driver.js"
import { openConnection } from "../sqlite/index/reader.js"
import { sql } from "../sqlite/index/sqlText.js"
import { EmbeddingsUnavailable, requestEmbeddings } from "./embeddingsEndpoint.js"

/** The query is embedded within this or search goes on lexically (issue 25: search never waits on a slow endpoint). */
export const QUERY_TIMEOUT_MS = 300
/** One batch of items at index time: a local model embeds 64 short texts in well under this. */
const BATCH_TIMEOUT_MS = 60_000
/** Items per request at index time. */
export const BATCH_SIZE = 64

/**
 * The API key: the configured reference through the Credentials service
 * (spec 01 §6), else AKM_EMBEDDINGS_API_KEY when set, else none (a local
 * endpoint needs none). Without a Credentials layer only `env:` references resolve.
 */
const apiKey = (config: EmbeddingsConfig) =>
  Effect.gen(function* () {
    const credentials = yield* Effect.serviceOption(Credentials)
    if (Option.isSome(credentials)) {
      if (config.apiKey === undefined) return yield* credentials.value.firstAvailable([DEFAULT_EMBEDDINGS_KEY])
      return yield* Effect.mapError(credentials.value.resolve(config.apiKey), (e) => new EmbeddingsUnavailable(`${e.message} (${e.hint})`))
    }
    const reference = config.apiKey ?? DEFAULT_EMBEDDINGS_KEY
    if (!reference.startsWith("env:")) return yield* Effect.fail(new EmbeddingsUnavailable(`cannot resolve ${reference} here: only env:VAR references are available`))
    const value = process.env[reference.slice(4)]
    if (value === undefined || value === "") {
      if (config.apiKey === undefined) return undefined
      return yield* Effect.fail(new EmbeddingsUnavailable(`${reference} is not set`))
    }
    return Redacted.make(value)
  })

/**
 * Hybrid retrieval's live layer (R-SRCH-4) over index.db's `embeddings`
 * table (index migration 0005_embeddings), opened on a connection of its own
 * when first needed. Does nothing, and opens nothing, while
 * `search.embeddings` is unset.
 */
export const EmbeddingsLive = Layer.scoped(
  Embeddings,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const progress = yield* Effect.serviceOption(Progress)
    const warn = (message: string) => (Option.isSome(progress) ? progress.value.warn(message) : Effect.sync(() => process.stderr.write(`${message}\n`)))
    let connection: Connection | undefined
    yield* Effect.addFinalizer(() => Effect.sync(() => connection?.close()))
    const db = Effect.sync(() => (connection ??= openConnection(workspace.paths.indexDb)).driver)
    const configured = Effect.map(workspace.read, (config) => config.search?.embeddings)

    const nearest = (query: string, limit: number): Effect.Effect<ReadonlyArray<SemanticMatch>> =>
      Effect.gen(function* () {
        const config = yield* configured
        if (config === undefined) return []
        const key = yield* apiKey(config)
        const [vector] = yield* requestEmbeddings(config, key, [query], QUERY_TIMEOUT_MS)
        const rows = yield* (yield* db).values(sql`SELECT d.ref, e.vector FROM embeddings e JOIN documents d ON d.hash = e.hash WHERE e.space = ${embeddingSpace(config)}`)
        const score = blobScorer(vector!)
        const scored = rows.map(([ref, blob]) => ({ ref: ref as string, similarity: score(blob as Uint8Array) }))
        return scored.sort((a, b) => b.similarity - a.similarity || (a.ref < b.ref ? -1 : 1)).slice(0, limit)
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(warn(`akm: semantic search skipped: ${error instanceof EmbeddingsUnavailable ? error.reason : "index.db has no embeddings table"}; lexical results only`), [])
        ),
        Effect.catchAllDefect(() => Effect.as(warn("akm: semantic search skipped: index.db could not be read; lexical results only"), []))
      )

    const refresh: Effect.Effect<EmbeddingRefresh | undefined> = Effect.gen(function* () {
      const config = yield* configured
      if (config === undefined) return undefined
      const driver = yield* db
      const space = embeddingSpace(config)
      // Vectors of content no item has any more go first; then the items without one, one row per content hash.
      yield* driver.run(sql`DELETE FROM embeddings WHERE space = ${space} AND hash NOT IN (SELECT hash FROM documents)`)
      const todo = (yield* driver.values(sql`SELECT d.hash, d.name, d.description, d.tags, substr(json_extract(j.doc, '$.content'), 1, 2000)
        FROM documents d JOIN document_json j ON j.id = d.id
        WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.space = ${space} AND e.hash = d.hash) GROUP BY d.hash ORDER BY d.hash`))
      const [counted] = yield* driver.values(sql`SELECT count(DISTINCT hash) FROM documents`)
      const reused = Number(counted?.[0] ?? 0) - todo.length
      if (todo.length === 0) return { embedded: 0, reused, missing: 0 }
      const key = yield* apiKey(config)
      let embedded = 0
      for (let start = 0; start < todo.length; start += BATCH_SIZE) {
        const batch = todo.slice(start, start + BATCH_SIZE)
        const texts = batch.map(([, name, description, tags, content]) =>
          embeddingText({ name: name as string, description: description as string | null, tags: tags as string, content: content as string | null }))
        const vectors = yield* Effect.either(requestEmbeddings(config, key, texts, BATCH_TIMEOUT_MS))
        if (vectors._tag === "Left") {
          yield* warn(`akm: ${todo.length - embedded} items were not embedded: ${vectors.left.reason}; they are searched lexically until the next index`)
          return { embedded, reused, missing: todo.length - embedded }
        }
        yield* driver.immediate((tx) =>
          Effect.forEach(batch, ([hash], i) => tx.run(sql`INSERT OR REPLACE INTO embeddings (space, hash, vector) VALUES (${space}, ${hash as string}, ${toBlob(vectors.right[i]!)})`), { discard: true }))
        embedded += batch.length
      }
      return { embedded, reused, missing: 0 }
    }).pipe(
      Effect.catchAll((error) =>
        Effect.as(warn(`akm: items were not embedded: ${error instanceof EmbeddingsUnavailable ? error.reason : "index.db could not be written"}; search stays lexical for them`), undefined)
      ),
      Effect.catchAllDefect(() => Effect.as(warn("akm: items were not embedded: index.db could not be opened"), undefined))
    )

    return Embeddings.of({ nearest, refresh })
  })
)
