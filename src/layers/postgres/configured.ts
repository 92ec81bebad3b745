import { readFileSync } from "node:fs"

/**
 * Whether config.yaml may put state on PostgreSQL (`storage.kind: postgres`):
 * the start-up fast paths serve only SQLite workspaces and step aside then. A
 * plain look for the key, not a YAML parse: a false alarm only means the full
 * CLI answers.
 */
export const mayUsePostgres = (configFile: string): boolean => {
  try {
    return /^\s*kind\s*:\s*["']?postgres["']?\s*(#.*)?$/m.test(readFileSync(configFile, "utf8"))
  } catch {
    return false
  }
}
