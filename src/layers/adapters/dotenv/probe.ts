import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"

const OWN_DIRECTORIES = new Set(["env/", "secrets/"])

/** Every visible top-level directory is `env/` or `secrets/`, and there is at least one. */
export const probeDotenv = (ctx: ProbeContext): Effect.Effect<boolean> => {
  const directories = ctx.entries.filter((entry) => entry.endsWith("/") && !entry.startsWith("."))
  return Effect.succeed(directories.length > 0 && directories.every((dir) => OWN_DIRECTORIES.has(dir)))
}
