import { randomUUID } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { it } from "vitest"
import { connectPg } from "../../src/layers/postgres/client.js"
import { pgStateDbAt } from "../../src/layers/postgres/PgStateDb.js"

/** The test server (`.ci/run` starts one through scripts/pg-cluster.mjs); unset, the Postgres suites are skipped. */
export const TEST_DATABASE_URL = process.env.AKM_TEST_DATABASE_URL === "" ? undefined : process.env.AKM_TEST_DATABASE_URL

export const SKIPPED_NAME = "Postgres suites not run: set AKM_TEST_DATABASE_URL (npm run test:postgres, or .ci/run, starts a throwaway server)"

/**
 * A test file's Postgres suites, registered only when AKM_TEST_DATABASE_URL is
 * set. Unset, the file shows one skipped entry under the suite's name (vitest
 * fails a file without tests); why they were skipped is said once, by
 * notRun.test.ts.
 */
export const postgresSuites = (name: string, register: (url: string) => void): void => {
  if (TEST_DATABASE_URL === undefined) it.skip(name, () => {})
  else register(TEST_DATABASE_URL)
}

const testUrl = (): Redacted.Redacted<string> => {
  if (TEST_DATABASE_URL === undefined) throw new Error(SKIPPED_NAME)
  return Redacted.make(TEST_DATABASE_URL)
}

/**
 * A fresh schema for one suite, dropped with everything in it when the scope
 * closes: suites share the server but never each other's rows or migrations.
 */
export const freshSchema = Effect.acquireRelease(
  Effect.gen(function* () {
    const schema = `akm_t_${randomUUID().replaceAll("-", "").slice(0, 16)}`
    yield* Effect.scoped(Effect.flatMap(connectPg(testUrl(), { maxConnections: 1 }), (sql) => sql.unsafe(`CREATE SCHEMA ${schema}`)))
    return schema
  }),
  (schema) => Effect.scoped(Effect.flatMap(connectPg(testUrl(), { maxConnections: 1 }), (sql) => sql.unsafe(`DROP SCHEMA ${schema} CASCADE`))).pipe(Effect.orDie)
).pipe(Effect.orDie)

/**
 * One statement on the test server's database (or the one `url` names), on a
 * connection of its own: the schemas, roles and extensions a suite sets up.
 */
export const adminStatement = <A extends object = Record<string, unknown>>(statement: string, url: string = TEST_DATABASE_URL!) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(connectPg(Redacted.make(url), { maxConnections: 1 }), (sql) => sql.unsafe<A>(statement))))

/** PgStateDb on a fresh schema of the test server. */
export const PgStateDbTest = Layer.unwrapScoped(Effect.map(freshSchema, (schema) => pgStateDbAt(testUrl(), { schema })))

/** The same schema through a second PgStateDb (another "server" on one database), for cross-process cases. */
export const twoServersOnOneSchema = Effect.map(freshSchema, (schema) => ({
  schema,
  layer: () => pgStateDbAt(testUrl(), { schema })
}))
