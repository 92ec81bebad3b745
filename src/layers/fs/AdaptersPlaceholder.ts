import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { Adapters, type AdapterInfo } from "../../services/Adapters.js"

const builtIns: ReadonlyArray<AdapterInfo> = [
  { id: "okf", version: "0", description: "OKF markdown knowledge base", writable: false },
  { id: "akm", version: "0", description: "akm native bundle", writable: false },
  { id: "agent-skills", version: "0", description: "Agent Skills (SKILL.md directories)", writable: false },
  { id: "claude", version: "0", description: "Claude Code folder or plugin", writable: false },
  { id: "opencode", version: "0", description: "OpenCode folder", writable: false },
  { id: "llm-wiki", version: "0", description: "LLM-maintained wiki", writable: false },
  { id: "dotenv", version: "0", description: "env definitions", writable: false },
  { id: "akm-workflow", version: "0", description: "workflow documents", writable: false },
  { id: "akm-task", version: "0", description: "scheduled task definitions", writable: false },
  { id: "website-snapshot", version: "0", description: "crawled website snapshot", writable: false },
  { id: "generic-files", version: "0", description: "any files", writable: false },
  { id: "project", version: "0", description: "a code repository's rules, ADRs and ledger", writable: false }
]

/** Breadth-first look for a markdown file, bounded so a huge tree costs little; never writes (R-AD-6). */
const hasMarkdown = (root: string, budget = 2_000): boolean => {
  const queue = [root]
  let seen = 0
  while (queue.length > 0 && seen < budget) {
    const dir = queue.shift()!
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      seen++
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue
      if (entry.isFile() && /\.md$/i.test(entry.name)) return true
      if (entry.isDirectory()) queue.push(path.join(dir, entry.name))
    }
  }
  return false
}

/**
 * The foundation's stand-in for adapter selection until the adapters land:
 * okf when the folder holds markdown, else generic-files.
 */
export const AdaptersPlaceholder = Layer.succeed(
  Adapters,
  Adapters.of({
    list: builtIns,
    get: (id) => builtIns.find((a) => a.id === id),
    adapter: () => undefined,
    detect: (root) =>
      Effect.try({
        try: () => builtIns.find((a) => a.id === (hasMarkdown(root) ? "okf" : "generic-files"))!,
        catch: (cause) => new WorkspaceUnavailable({ path: root, reason: String(cause), hint: "check that the folder is readable" })
      })
  })
)
