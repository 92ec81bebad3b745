import { Layer } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { makeIndexStorePg, type IndexStorePgOptions } from "./index/store.js"

export { makeIndexStorePg, type IndexStorePgOptions } from "./index/store.js"

/**
 * IndexStore on PostgreSQL (issue 27, decision 0034): requires an
 * @effect/sql SqlClient on the team database (PgClient); migrates its tables
 * (`akm_index_migrations`) on first use.
 */
export const makeIndexStorePgLayer = (options: IndexStorePgOptions = {}) => Layer.effect(IndexStore, makeIndexStorePg(options))

export const IndexStorePg = makeIndexStorePgLayer()
