import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { parseFrontmatter, stringField } from "../core/Frontmatter.js"

/** How many markdown files the probe opens before giving up (R-AD-6: bounded). */
const PROBE_FILES = 50

/** Spec 03 §1.2 row 11: a root `index.md`, or any `.md` whose frontmatter has a non-empty `type`. */
export const probeOkf = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (ctx.entries.includes("index.md")) return true
    const candidates = yield* ctx.find((path) => path.endsWith(".md") && !path.split("/").includes(".git"), PROBE_FILES)
    for (const path of candidates) {
      const text = yield* ctx.readText(path)
      if (text !== undefined && stringField(parseFrontmatter(text).data, "type") !== undefined) return true
    }
    return false
  })
