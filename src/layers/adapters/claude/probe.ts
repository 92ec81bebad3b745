import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

const CONTENT_DIRS = ["commands", "agents", "skills", ".claude/commands", ".claude/agents", ".claude/skills"]

/** Claude Code's own settings file, as it sits in a `~/.claude` user directory: a JSON object. */
const hasSettings = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.map(ctx.readText("settings.json"), (text) => {
    if (text === undefined) return false
    try {
      const json: unknown = JSON.parse(text)
      return json !== null && typeof json === "object" && !Array.isArray(json)
    } catch {
      return false
    }
  })

/**
 * Spec 03 §1.2 order 4: a root CLAUDE.md, a `.claude/` directory, a plugin
 * manifest (`.claude-plugin/plugin.json`) or Claude Code's `settings.json`,
 * plus commands, agents or skills at the root or under `.claude/` — so a
 * plugin directory and a bare `~/.claude` directory are claude bundles.
 */
export const probeClaude = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const marked = (yield* ctx.exists("CLAUDE.md")) || (yield* ctx.isDirectory(".claude")) || (yield* ctx.exists(".claude-plugin/plugin.json")) || (yield* hasSettings(ctx))
    if (!marked) return false
    for (const dir of CONTENT_DIRS) if (yield* ctx.isDirectory(dir)) return true
    return false
  })
