import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { isTypeDirectory } from "./types.js"

export const STASH_MARKER = ".stash"

/** A `.stash` marker, or two or more of the type directories at the root. */
export const probeAkm = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (ctx.entries.includes(STASH_MARKER) || ctx.entries.includes(`${STASH_MARKER}/`) || (yield* ctx.exists(STASH_MARKER))) return true
    return ctx.entries.filter((entry) => entry.endsWith("/") && isTypeDirectory(entry.slice(0, -1))).length >= 2
  })
