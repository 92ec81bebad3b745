import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { SCHEMA_FILE } from "./layout.js"

/** A root `schema.md` file plus a `pages/` directory. */
export const probeLlmWiki = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.succeed(ctx.entries.includes(SCHEMA_FILE) && ctx.entries.includes("pages/"))
