import { Effect, Layer } from "effect"
import { Redactor } from "../../services/Redactor.js"
import type { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { WorkspaceConfig as WorkspaceConfigTag } from "../../services/WorkspaceConfig.js"
import { clientDriver } from "./clientDriver.js"
import { redactorOn } from "./redactor.js"
import { StateDb } from "./StateDb.js"

export { readRedactorKey, REDACTOR_DIGESTS, redactorKeyFile } from "./redactor.js"

/** Redactor over the shared state.db connection (redactor.ts's statements on its @effect/sql client). */
export const redactorFrom = (stateDb: StateDb["Type"], workspace: WorkspaceConfig["Type"]) =>
  Effect.sync(() => redactorOn(stateDb.filename, Effect.map(stateDb.client, clientDriver), workspace))

/** Needs StateDb and WorkspaceConfig (both in AkmLive and AkmTest). */
export const RedactorSqlite = Layer.effect(Redactor, Effect.flatMap(Effect.all([StateDb, WorkspaceConfigTag]), ([db, workspace]) => redactorFrom(db, workspace)))
