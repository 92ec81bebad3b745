import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

const CONFIG_FILES = ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"]
const CONTENT_DIRS = ["agent", "agents", "command", "commands"]

/**
 * Spec 03 §1.2 order 5: `opencode.json(c)`, or `AGENTS.md` plus agent or
 * command directories (singular or plural, at the root or under `.opencode/`);
 * a `.opencode/` directory holding them is enough on its own.
 */
export const probeOpenCode = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    for (const file of CONFIG_FILES) if (yield* ctx.exists(file)) return true
    const agentsMd = yield* ctx.exists("AGENTS.md")
    for (const dir of CONTENT_DIRS) {
      if (agentsMd && (yield* ctx.isDirectory(dir))) return true
      if (yield* ctx.isDirectory(`.opencode/${dir}`)) return true
    }
    return false
  })
