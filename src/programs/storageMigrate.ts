import { Effect } from "effect"
import { StateTransfer } from "../services/StateTransfer.js"

/** `akm storage migrate`: the workspace's state from state.db into the configured PostgreSQL database, counts verified. */
export const storageMigrate = Effect.fn("storageMigrate")(function* () {
  const transfer = yield* StateTransfer
  return yield* transfer.toPostgres
})
