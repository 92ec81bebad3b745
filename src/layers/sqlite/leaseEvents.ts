import * as path from "node:path"
import { Effect } from "effect"
import { redact, redactFields } from "../../domain/Redaction.js"
import type { LeaseOptions, LeaseTakeover } from "../fs/transaction/Lease.js"
import { openConnection } from "./index/reader.js"
import { sql } from "./index/sqlText.js"

/**
 * Records a stale-lease takeover as a `lease.taken-over` event in state.db
 * (spec 06 R-IMP-4: a stale lease is reclaimed with an event). It opens its
 * own short plain connection: the lease also guards config rewrites, which
 * run below the layer that owns the shared state.db connection, and the
 * search fast path's bundle (which carries WorkspaceConfig and IndexStore
 * whole) has no @effect/sql client or migrator. A takeover is rare, so the
 * extra open costs nothing that matters. A workspace whose state.db does not
 * exist yet has no history to add to: it records nothing, and the writer goes
 * on either way. Its data (what, reason, holder pid/host) is akm's own text,
 * but goes through the redactor's patterns like every event (no layer here,
 * so no stored values: none of it comes from a bundle).
 */
export const recordLeaseTakeover = (stateDb: string) => (takeover: LeaseTakeover) =>
  Effect.acquireUseRelease(
    Effect.try(() => openConnection(stateDb)),
    (connection) =>
      connection.driver.immediate((tx) =>
        tx.run(sql`INSERT INTO events (at, kind, subject, data) VALUES (${takeover.at}, 'lease.taken-over', ${`locks/${path.basename(takeover.file)}`}, ${
          JSON.stringify(redactFields({ what: takeover.what, reason: takeover.reason, holder: takeover.holder ?? null }, (text) => redact(text)))
        })`)
      ),
    (connection) => Effect.sync(connection.close)
  )

/**
 * The lease options of a lease file in `$DATA/locks/` (domain/Paths.ts), its
 * takeover events going to `$DATA/state.db` beside that directory.
 */
export const workspaceLease = (file: string, what: string, bounds: { readonly waitMillis: number; readonly maxAgeMillis: number }): LeaseOptions => ({
  file,
  what,
  ...bounds,
  onTakeover: recordLeaseTakeover(path.join(path.dirname(path.dirname(file)), "state.db"))
})
