import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { parseFrontmatter } from "../core/Frontmatter.js"

const PROBE_LIMIT = 50

export const isWorkflowText = (text: string): boolean => parseFrontmatter(text).data?.["type"] === "workflow"

/** A top-level `.md` whose frontmatter says `type: workflow`. */
export const probeAkmWorkflow = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const candidates = ctx.entries.filter((entry) => entry.endsWith(".md")).slice(0, PROBE_LIMIT)
    for (const path of candidates) {
      const text = yield* ctx.readText(path)
      if (text !== undefined && isWorkflowText(text)) return true
    }
    return false
  })
