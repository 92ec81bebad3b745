import { Context, Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

/**
 * The lock every akm server sharing bundle folders holds while it writes them
 * (issue 27 §3). The transaction engine takes it inside its own workspace
 * lease, around each apply, revert and recovery, so a before-hash checked on
 * one server cannot be overwritten by another between check and rename. One
 * workspace on its own needs nothing beyond its lease: `none`.
 */
export class BundleWriteLock extends Context.Tag("akm/BundleWriteLock")<BundleWriteLock, {
  readonly around: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | WorkspaceUnavailable>
}>() {
  static readonly none: BundleWriteLock["Type"] = { around: (effect) => effect }
}
