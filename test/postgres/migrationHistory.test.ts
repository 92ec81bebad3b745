import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Exit, Redacted } from "effect"
import { DatabaseTooNew } from "../../src/domain/Errors.js"
import { connectPg } from "../../src/layers/postgres/client.js"
import { makeIndexStorePg } from "../../src/layers/postgres/index/store.js"
import { INDEX_MIGRATIONS_TABLE, indexMigrationsPg } from "../../src/layers/postgres/index/migrations.js"
import { migrateHistory } from "../../src/layers/postgres/migrationHistory.js"
import { pgStateMigrations, STATE_MIGRATIONS_TABLE } from "../../src/layers/postgres/migrations.js"
import { openPgState } from "../../src/layers/postgres/PgStateDb.js"
import { freshSchema, postgresSuites, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * The one migration-history check of the team database (migrationHistory.ts),
 * used by the state stores (akm_state_migrations) and the index
 * (akm_index_migrations): migrated once by servers starting together,
 * idempotent, and a database with a migration this akm does not know refused.
 */
const pool = (schema: string) => connectPg(Redacted.make(TEST_DATABASE_URL!), { schema, maxConnections: 2 })

const history = (table: string, migrations: typeof pgStateMigrations) => ({ table, migrations, lock: `test/${table}`, label: "the test database", hint: "upgrade" })

postgresSuites("the team database's migration histories", () => {
  describe("the team database's migration histories", () => {
    it.scopedLive("servers starting together migrate both histories once; a second run changes nothing", () =>
      Effect.gen(function* () {
        const schema = yield* freshSchema
        const [a, b] = [yield* pool(schema), yield* pool(schema)]
        for (const [table, migrations] of [[STATE_MIGRATIONS_TABLE, pgStateMigrations], [INDEX_MIGRATIONS_TABLE, indexMigrationsPg]] as const) {
          const runs = yield* Effect.all([a, b].map((sql) => Effect.provideService(migrateHistory(history(table, migrations)), SqlClient.SqlClient, sql)), { concurrency: 2 })
          expect(runs[0]).toEqual(Object.keys(migrations).sort())
          expect(runs[1]).toEqual(runs[0])
          expect(yield* Effect.provideService(migrateHistory(history(table, migrations)), SqlClient.SqlClient, a)).toEqual(runs[0])
          const rows = yield* a<{ n: string }>`SELECT count(*) AS n FROM ${a(table)}`
          expect(Number(rows[0]!.n)).toBe(Object.keys(migrations).length)
        }
      }))

    it.scopedLive("a database recording a migration this akm does not know is refused, by the state stores and by the index alike", () =>
      Effect.gen(function* () {
        const schema = yield* freshSchema
        const sql = yield* pool(schema)
        const url = new URL(TEST_DATABASE_URL!)
        url.searchParams.set("options", `-c search_path=${schema}`)
        yield* openPgState(Redacted.make(url.toString()))
        yield* sql`INSERT INTO ${sql(STATE_MIGRATIONS_TABLE)} (migration_id, name) VALUES (9999, 'from_the_future')`
        const state = yield* Effect.exit(openPgState(Redacted.make(url.toString())))
        expect(state).toEqual(Exit.fail(expect.any(DatabaseTooNew)))
        expect(Exit.isFailure(state) && state.cause._tag === "Fail" && (state.cause.error as DatabaseTooNew).unknown).toEqual(["9999_from_the_future"])

        const store = yield* Effect.provideService(makeIndexStorePg({ label: "the index" }), SqlClient.SqlClient, sql)
        yield* store.init
        yield* sql`INSERT INTO ${sql(INDEX_MIGRATIONS_TABLE)} (migration_id, name) VALUES (9999, 'from_the_future')`
        const fresh = yield* Effect.provideService(makeIndexStorePg({ label: "the index" }), SqlClient.SqlClient, sql)
        const index = yield* Effect.exit(fresh.init)
        expect(Exit.isFailure(index) && index.cause._tag === "Fail" ? index.cause.error : undefined).toBeInstanceOf(DatabaseTooNew)
        expect(Exit.isFailure(index) && index.cause._tag === "Fail" && (index.cause.error as DatabaseTooNew).unknown).toEqual(["9999_from_the_future"])
      }))
  })
})
