import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

/** Spec 03 §1.2 order 3: a direct child directory holds a SKILL.md (or the lowercase skill.md skills-ref accepts). */
export const probeAgentSkills = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    for (const entry of ctx.entries) {
      if (!entry.endsWith("/") || entry.startsWith(".")) continue
      if ((yield* ctx.exists(`${entry}SKILL.md`)) || (yield* ctx.exists(`${entry}skill.md`))) return true
    }
    return false
  })
