import { Either, ParseResult, Schema } from "effect"

/**
 * `.ai/config.json` of a project bundle (spec 08 §1). Unknown keys are a
 * warning (a newer akm may know them); a value of the wrong type is an error
 * naming its key.
 */

export const BUILT_IN_EXTRA_TARGETS = ["windsurf", "cline", "zed", "jetbrains", "amazonq"] as const

export const ExtraTarget = Schema.Union(
  Schema.Literal(...BUILT_IN_EXTRA_TARGETS),
  Schema.Struct({
    id: Schema.String.pipe(Schema.minLength(1)),
    path: Schema.String.pipe(Schema.minLength(1)),
    frontmatter: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    maxBytes: Schema.optional(Schema.Int.pipe(Schema.positive()))
  })
)

export const ProjectConfig = Schema.Struct({
  briefTier: Schema.optionalWith(Schema.Literal("lean", "standard", "deep"), { default: () => "standard" as const }),
  briefBudget: Schema.optional(Schema.Int.pipe(Schema.positive())),
  interruptBudget: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 5 }),
  sensitive: Schema.optionalWith(Schema.Struct({ allow: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }) }), { default: () => ({ allow: [] }) }),
  scope: Schema.optionalWith(Schema.Struct({ ignore: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }) }), { default: () => ({ ignore: [] }) }),
  routers: Schema.optionalWith(Schema.Struct({ extraTargets: Schema.optionalWith(Schema.Array(ExtraTarget), { default: () => [] }) }), { default: () => ({ extraTargets: [] }) })
})

export type ProjectConfig = typeof ProjectConfig.Type

/** What `akm init project` writes: every key with its default, so the file documents itself. */
export const STARTER_PROJECT_CONFIG = {
  briefTier: "standard",
  interruptBudget: 5,
  sensitive: { allow: [] },
  scope: { ignore: [] },
  routers: { extraTargets: [] }
} as const

const KNOWN: Readonly<Record<string, ReadonlyArray<string> | null>> = {
  briefTier: null,
  briefBudget: null,
  interruptBudget: null,
  sensitive: ["allow"],
  scope: ["ignore"],
  routers: ["extraTargets"]
}

export interface ProjectConfigProblem {
  /** Dotted key path (`routers.extraTargets.0.path`). */
  readonly key: string
  readonly reason: string
}

/** Keys this akm does not know (warnings). */
const unknownKeys = (data: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(KNOWN, key)) {
      out.push(key)
      continue
    }
    const inner = KNOWN[key]
    if (inner !== null && inner !== undefined && value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const sub of Object.keys(value)) if (!inner.includes(sub)) out.push(`${key}.${sub}`)
    }
  }
  return out
}

const decode = Schema.decodeUnknownEither(ProjectConfig, { onExcessProperty: "ignore", errors: "all" })

/**
 * Parses the JSON text: Right with the config and the unknown keys
 * (warnings), Left with the first problem naming its key.
 */
export const parseProjectConfig = (text: string): Either.Either<{ readonly config: ProjectConfig; readonly warnings: ReadonlyArray<string> }, ProjectConfigProblem> => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return Either.left({ key: "(file)", reason: `not valid JSON: ${(error as Error).message}` })
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return Either.left({ key: "(file)", reason: "the file must hold one JSON object" })
  const decoded = decode(data)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    return Either.left({ key: issue === undefined || issue.path.length === 0 ? "(file)" : issue.path.map(String).join("."), reason: issue?.message ?? "invalid value" })
  }
  return Either.right({ config: decoded.right, warnings: unknownKeys(data as Record<string, unknown>).map((key) => `unknown key '${key}' in .ai/config.json (ignored)`) })
}

export const defaultProjectConfig: ProjectConfig = Schema.decodeUnknownSync(ProjectConfig)({})
