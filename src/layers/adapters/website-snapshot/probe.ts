import { Effect } from "effect"
import type { ProbeContext } from "../../../domain/Adapter.js"
import { MANIFEST_PATH } from "./manifest.js"

/** Spec 03 §1.2 row 2: a root `manifest.json` with `url` and `fetchedAt`. */
export const probeWebsiteSnapshot = (ctx: ProbeContext): Effect.Effect<boolean> =>
  Effect.map(ctx.readText(MANIFEST_PATH), (text) => {
    if (text === undefined) return false
    try {
      const json = JSON.parse(text) as unknown
      if (json === null || typeof json !== "object") return false
      const { url, fetchedAt } = json as Record<string, unknown>
      return typeof url === "string" && url !== "" && typeof fetchedAt === "string" && fetchedAt !== ""
    } catch {
      return false
    }
  })
