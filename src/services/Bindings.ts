import { Context, type Effect } from "effect"
import type { Binding } from "../domain/RuntimeExport.js"
import type { StateStoreError } from "./StateStore.js"

/**
 * The operator's bindings in state.db (spec 07 §1, docs/decisions/0019):
 * which export is approved, at which digest, under which alias, with which
 * params and env references (never values). Local authority: nothing a
 * bundle carries creates or changes a binding.
 */
export class Bindings extends Context.Tag("akm/Bindings")<Bindings, {
  /** Stores a new binding; false when the alias is taken (nothing changed). */
  readonly add: (binding: Binding) => Effect.Effect<boolean, StateStoreError>
  readonly list: Effect.Effect<ReadonlyArray<Binding>, StateStoreError>
  readonly get: (alias: string) => Effect.Effect<Binding | undefined, StateStoreError>
  /** The bindings of one export ref, oldest first. */
  readonly forExport: (exportRef: string) => Effect.Effect<ReadonlyArray<Binding>, StateStoreError>
  /** Removes a binding; false when there was none. */
  readonly remove: (alias: string) => Effect.Effect<boolean, StateStoreError>
  /** Approves a new digest and definition for an alias (`bind --update`, `env set`); false when there is no such alias. */
  readonly approve: (alias: string, approval: Pick<Binding, "digest" | "definition" | "approvedAt">) => Effect.Effect<boolean, StateStoreError>
  /** Rekeys every binding of one bundle's exports to the new bundle name (R-REF-6). */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
