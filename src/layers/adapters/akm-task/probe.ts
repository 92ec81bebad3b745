import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { readTask } from "./taskDefinition.js"

const PROBE_LIMIT = 50

export const isTaskFileName = (path: string): boolean => path.endsWith(".yml") || path.endsWith(".yaml")

/** A top-level `.yml`/`.yaml` file with a non-empty `schedule`. */
export const probeAkmTask = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const candidates = ctx.entries.filter((entry) => !entry.endsWith("/") && isTaskFileName(entry)).slice(0, PROBE_LIMIT)
    for (const path of candidates) {
      const text = yield* ctx.readText(path)
      if (text !== undefined && readTask(text).schedule !== undefined) return true
    }
    return false
  })
