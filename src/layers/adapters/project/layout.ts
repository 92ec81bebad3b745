/**
 * The project layout (spec 08 §1): the knowledge files of a code repository.
 * Source code is not indexed; `.ai/index.json` and `.ai/config.json` are
 * generated or configuration, never items.
 */
export const ROUTER_FILES: ReadonlyArray<string> = [
  "AGENTS.md", "CLAUDE.md", "CODEX.md", "GEMINI.md", "GLM.md", "KIMI.md", "QWEN.md", "DEEPSEEK.md", "MISTRAL.md",
  ".cursor/rules/akm.mdc", ".github/copilot-instructions.md"
]

export const BRIEF_FILE = ".ai/BRIEF.md"
export const LEDGER_DIR = ".ai/ledger/"

export type ProjectKind = "router" | "rule" | "document" | "adr" | "business" | "memory" | "context" | "ledger" | "brief"

/** The item type shown for each kind (ledger records take their kind instead). */
export const TYPE_OF: Readonly<Record<Exclude<ProjectKind, "ledger">, string>> = {
  router: "instruction",
  rule: "rule",
  document: "document",
  adr: "adr",
  business: "business",
  memory: "memory",
  context: "context",
  brief: "brief"
}

const under = (path: string, dir: string): boolean => path.startsWith(dir) && path.endsWith(".md")

/** What a path is in a project, or undefined when it is not a knowledge file. */
export const projectKindOf = (path: string): ProjectKind | undefined => {
  if (ROUTER_FILES.includes(path)) return "router"
  if (path === BRIEF_FILE) return "brief"
  if (under(path, LEDGER_DIR)) return path.slice(LEDGER_DIR.length).split("/").length === 2 ? "ledger" : undefined
  if (under(path, "rules/")) return "rule"
  if (under(path, "docs/adr/")) return "adr"
  if (under(path, "docs/business/")) return "business"
  if (under(path, "docs/")) return "document"
  if (under(path, "memory/")) return "memory"
  if (under(path, "context/")) return "context"
  return undefined
}

/** Concept id: the path without `.md`/`.mdc`. */
export const projectConceptId = (path: string): string => path.replace(/\.mdc?$/, "")

/** `.ai/ledger/failure/x.md` → { kind: "failure", id: "x" }. */
export const ledgerPathParts = (path: string): { readonly kind: string; readonly id: string } => {
  const [kind = "", file = ""] = path.slice(LEDGER_DIR.length).split("/")
  return { kind, id: file.replace(/\.md$/, "") }
}
