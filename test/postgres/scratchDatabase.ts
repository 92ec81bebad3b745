import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"

let counter = 0

/** One statement on the server the URL names, on a connection of its own. */
const admin = (url: string, statement: string) =>
  Effect.scoped(Effect.flatMap(Layer.build(PgClient.layer({ url: Redacted.make(url) })), (context) => Context.get(context, PgClient.PgClient).unsafe(statement))).pipe(Effect.orDie)

/**
 * A database of its own for one suite, created next to the one the URL names
 * and dropped when the layer is released; yields its URL.
 */
export const scratchDatabase = (url: string, label: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const base = new URL(url)
      const name = `${base.pathname.slice(1) || "akm"}_${label}_${process.pid}_${++counter}`.replace(/[^a-z0-9_]/gi, "_").toLowerCase()
      yield* admin(url, `CREATE DATABASE "${name}"`)
      base.pathname = `/${name}`
      return { name, url: base.toString() }
    }),
    ({ name }) => admin(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  )

/** A PgClient (and SqlClient) on a database URL. */
export const pgClient = (url: string) => PgClient.layer({ url: Redacted.make(url) })

/** A PgClient on a fresh database, dropped afterwards. */
export const scratchClient = (url: string, label: string) => Layer.unwrapScoped(Effect.map(scratchDatabase(url, label), (db) => pgClient(db.url)))
