import { it } from "@effect/vitest"
import { Layer } from "effect"
import { StateStorePg } from "../../src/layers/postgres/StateStorePg.js"
import { stateStoreContract } from "../services/StateStore.contract.js"
import { PgStateDbTest, SKIPPED_NAME, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * R-ARCH-5 on PostgreSQL: each state-side store passes the contract suite its
 * SQLite layer passes, each suite on a schema of its own.
 */
if (TEST_DATABASE_URL === undefined) {
  it.skip(SKIPPED_NAME, () => {})
} else {
  stateStoreContract("postgres", StateStorePg.pipe(Layer.provide(PgStateDbTest)))
}
