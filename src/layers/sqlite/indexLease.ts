import type { Effect } from "effect"
import type { IndexStore } from "../../services/IndexStore.js"
import { withLease } from "../fs/transaction/Lease.js"
import { workspaceLease } from "./leaseEvents.js"

/**
 * IndexStore.withWriteLease for both index.db layers (IndexStoreSqlite,
 * IndexStoreConnection): one writer per process through `local`, one per
 * workspace through the index lease file (R-IDX-6) when there is one.
 */
export const indexWriteLease = (local: Effect.Semaphore, leaseFile: string | undefined): IndexStore["Type"]["withWriteLease"] => (effect) =>
  local.withPermits(1)(
    leaseFile === undefined
      ? effect
      // A full index of a large corpus can take minutes: the age bound is an hour; waiters give up after 10 s.
      : withLease(workspaceLease(leaseFile, "the index write lease", { waitMillis: 10_000, maxAgeMillis: 3_600_000 }))(effect)
  )
