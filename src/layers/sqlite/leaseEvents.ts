import * as path from "node:path"
import { Effect } from "effect"
import type { LeaseOptions, LeaseTakeover } from "../fs/transaction/Lease.js"
import { makeStateStore } from "./StateStoreSqlite.js"

/**
 * Records a stale-lease takeover as a `lease.taken-over` event in state.db
 * (spec 06 R-IMP-4: a stale lease is reclaimed with an event). It opens its
 * own short connection: the lease also guards config rewrites, which run
 * below the layer that owns the shared state.db connection, and a takeover is
 * rare enough that the extra open costs nothing that matters.
 */
export const recordLeaseTakeover = (stateDb: string) => (takeover: LeaseTakeover) =>
  Effect.scoped(
    Effect.flatMap(makeStateStore(stateDb), (store) =>
      store.appendEvent("lease.taken-over", `locks/${path.basename(takeover.file)}`, {
        what: takeover.what,
        reason: takeover.reason,
        holder: takeover.holder ?? null
      })
    )
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
