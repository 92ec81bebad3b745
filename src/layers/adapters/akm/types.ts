/**
 * akm's native working format (spec 03 "akm"): one directory per item type.
 * The concept id is `<dir>/<name>` and the type is the directory's type;
 * markdown outside these directories is `knowledge`.
 */
export const TYPE_DIRECTORIES = {
  skills: "skill",
  commands: "command",
  agents: "agent",
  knowledge: "knowledge",
  instructions: "instruction",
  workflows: "workflow",
  scripts: "script",
  memories: "memory",
  lessons: "lesson",
  facts: "fact",
  env: "env",
  secrets: "secret",
  tasks: "task",
  sessions: "session"
} as const

export type TypeDirectory = keyof typeof TYPE_DIRECTORIES
export type AkmType = typeof TYPE_DIRECTORIES[TypeDirectory]

export const AKM_TYPES: ReadonlyArray<AkmType> = Object.values(TYPE_DIRECTORIES)

const DIRECTORY_OF = Object.fromEntries(Object.entries(TYPE_DIRECTORIES).map(([dir, type]) => [type, dir])) as Record<AkmType, TypeDirectory>

export const isTypeDirectory = (name: string): name is TypeDirectory => Object.hasOwn(TYPE_DIRECTORIES, name)

export const directoryOf = (type: AkmType): TypeDirectory => DIRECTORY_OF[type]

/** A type named by its type, its directory, or an authoring verb (`remember` → memory, `import` → knowledge). */
export const typeNamed = (name: string): AkmType | undefined => {
  const lower = name.trim().toLowerCase()
  if (lower === "remember") return "memory"
  if (lower === "import") return "knowledge"
  if ((AKM_TYPES as ReadonlyArray<string>).includes(lower)) return lower as AkmType
  return isTypeDirectory(lower) ? TYPE_DIRECTORIES[lower] : undefined
}

/** Frontmatter fields akm reads (besides `scope_*`). */
export const AKM_FIELDS: ReadonlyArray<string> = [
  "description", "tags", "aliases", "searchHints", "quality", "beliefState", "supersededBy",
  "observed_at", "expires", "captureMode", "xrefs", "params"
]

export const QUALITIES: ReadonlyArray<string> = ["curated", "generated", "proposed"]
export const BELIEF_STATES: ReadonlyArray<string> = ["asserted", "active", "deprecated", "superseded", "contradicted", "archived"]
export const SCOPE_PREFIX = "scope_"
