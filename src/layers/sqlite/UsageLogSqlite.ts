import { Effect, Layer } from "effect"
import { UsageLog } from "../../services/UsageLog.js"
import { clientDriver } from "./clientDriver.js"
import { makeStateDb, StateDb } from "./StateDb.js"
import { usageLogOn } from "./usage.js"

export { SELECT_WINDOW_MS } from "./usage.js"

/** UsageLog over the shared state.db connection (usage.ts's statements on its @effect/sql client). */
export const usageLogFrom = (stateDb: StateDb["Type"]) => Effect.sync(() => usageLogOn(stateDb.filename, Effect.map(stateDb.client, clientDriver)))

/** A UsageLog with its own state.db connection (tests, tools). */
export const makeUsageLog = (filename: string) => Effect.flatMap(makeStateDb(filename), usageLogFrom)

/** Needs StateDb (StateDbLive in AkmLive, StateDbMemory in AkmTest). */
export const UsageLogSqlite = Layer.effect(UsageLog, Effect.flatMap(StateDb, usageLogFrom))
