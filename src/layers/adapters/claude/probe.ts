import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

const CONTENT_DIRS = ["commands", "agents", "skills", ".claude/commands", ".claude/agents", ".claude/skills"]

/**
 * Spec 03 §1.2 order 4: a root CLAUDE.md, a `.claude/` directory or a plugin
 * manifest (`.claude-plugin/plugin.json`), plus commands, agents or skills at
 * the root or under `.claude/` — so a Claude Code plugin directory is a claude bundle.
 */
export const probeClaude = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const marked = (yield* ctx.exists("CLAUDE.md")) || (yield* ctx.isDirectory(".claude")) || (yield* ctx.exists(".claude-plugin/plugin.json"))
    if (!marked) return false
    for (const dir of CONTENT_DIRS) if (yield* ctx.isDirectory(dir)) return true
    return false
  })
