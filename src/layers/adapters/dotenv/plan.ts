import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans, type Candidate } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { hiddenBySensitiveMarkers } from "./sensitive.js"

/** An env file: `.env` extension or none (`env/prod.env`, `env/prod`). */
const isEnvFileName = (name: string): boolean => name.endsWith(".env") || !name.includes(".")

/**
 * `env/**` env files → `env` items (id without `.env`); `secrets/**` → `secret`
 * items (id = path). Everything else in the root, and anything a
 * `.sensitive` marker hides, is not an item.
 */
export const planDotenv = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult => {
  const paths = files.map((file) => file.path)
  const hidden = hiddenBySensitiveMarkers(paths)
  const candidates: Array<Candidate> = []
  for (const path of paths) {
    if (hidden.has(path)) continue
    const name = path.split("/").pop()!
    if (path.startsWith("env/") && isEnvFileName(name)) {
      const stripped = path.endsWith(".env") ? path.slice(0, -".env".length) : path
      candidates.push({ conceptId: stripped, files: [path], kind: "env", rank: path.endsWith(".env") ? 0 : 1 })
    } else if (path.startsWith("secrets/")) {
      candidates.push({ conceptId: path, files: [path], kind: "secret" })
    }
  }
  return settlePlans(candidates, book)
}
