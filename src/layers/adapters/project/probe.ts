import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

/** A root `.ai/` directory, or `rules/` plus AGENTS.md or CLAUDE.md at the root of a git repository. */
export const probeProject = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if (yield* ctx.isDirectory(".ai")) return true
    const router = ctx.entries.includes("AGENTS.md") || ctx.entries.includes("CLAUDE.md")
    if (!router || !(yield* ctx.isDirectory("rules"))) return false
    // `.git` is a directory in a clone and a file in a worktree.
    return yield* ctx.exists(".git")
  })
