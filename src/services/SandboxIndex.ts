import { Context, type Effect } from "effect"
import type { IndexStore } from "./IndexStore.js"

/**
 * Throw-away in-memory indexes for Improve's Level 2 (spec 06 §6): each
 * `make` is a fresh, empty IndexStore with the live index's ranking inputs,
 * so the baseline and baseline+candidate can be searched side by side
 * without touching index.db.
 */
export class SandboxIndex extends Context.Tag("akm/SandboxIndex")<SandboxIndex, {
  readonly make: Effect.Effect<IndexStore["Type"]>
}>() {}
