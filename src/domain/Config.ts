import { Schema } from "effect"
import { generatorConfigProblems } from "./GeneratorConfig.js"
import { MemorySection, memoryPolicyProblems } from "./MemoryPolicy.js"
import { BundleName } from "./Ref.js"
import { EmbeddingsConfig } from "./EmbeddingsConfig.js"
import { MAX_LIMIT } from "./Search.js"

/**
 * The desired configuration ($CONFIG/config.yaml), spec 01 §2. Human-edited;
 * validated strictly so a typo is reported with its path instead of ignored.
 * It never holds lock data (R-WS-8).
 */

/** "30m", "12h", "7d": how often `bundle update --due` refreshes a bundle. */
export const Interval = Schema.String.pipe(
  Schema.pattern(/^\d+(s|m|h|d|w)$/, { message: () => "an interval looks like 30m, 12h, 7d or 2w" })
)

export const FilesystemSource = Schema.Struct({
  kind: Schema.Literal("filesystem"),
  path: Schema.String.pipe(Schema.minLength(1))
})
export const GitSource = Schema.Struct({
  kind: Schema.Literal("git"),
  url: Schema.String.pipe(Schema.minLength(1)),
  ref: Schema.optional(Schema.String),
  /** Plain http:// allowed (--allow-insecure), repeated by `bundle update`. */
  allowInsecure: Schema.optional(Schema.Boolean)
})
export const NpmSource = Schema.Struct({
  kind: Schema.Literal("npm"),
  package: Schema.String.pipe(Schema.minLength(1)),
  version: Schema.optional(Schema.String),
  registry: Schema.optional(Schema.String)
})
export const WebsiteSource = Schema.Struct({
  kind: Schema.Literal("website"),
  url: Schema.String.pipe(Schema.minLength(1)),
  maxPages: Schema.optional(Schema.Int.pipe(Schema.positive())),
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  allowInsecure: Schema.optional(Schema.Boolean)
})
export const BundleSource = Schema.Union(FilesystemSource, GitSource, NpmSource, WebsiteSource)
export type BundleSource = typeof BundleSource.Type
export type SourceKind = BundleSource["kind"]

export const BundleConfig = Schema.Struct({
  source: BundleSource,
  adapter: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  writable: Schema.optional(Schema.Boolean),
  refresh: Schema.optional(Interval),
  git: Schema.optional(Schema.Struct({
    commit: Schema.optional(Schema.Boolean),
    /** `akm sync`: the https credential as a reference (spec 01 §6: env:VAR or secret:<ref>; default env:AKM_GIT_TOKEN). */
    token: Schema.optional(Schema.String.pipe(Schema.filter((ref) => /^(env:[A-Za-z_][A-Za-z0-9_]*|secret:\S+)$/.test(ref) || "a credential reference: env:VAR or secret:<ref>, never the token itself")))
  }))
})
export type BundleConfig = typeof BundleConfig.Type

/** The default reference of storage.url (spec 01 §6). */
export const DEFAULT_DATABASE_URL = "env:AKM_DATABASE_URL"

export const StorageConfig = Schema.Struct({
  kind: Schema.optionalWith(Schema.Literal("sqlite", "postgres"), { default: () => "sqlite" as const }),
  url: Schema.optional(Schema.String.pipe(Schema.filter((ref) =>
    /^(env:[A-Za-z_][A-Za-z0-9_]*|secret:\S+)$/.test(ref) ||
    "a credential reference — env:VAR or secret:<ref> — never the connection URL itself (it holds the password): export it as AKM_DATABASE_URL and leave url out, or store it with `akm secret set`")))
})
export type StorageConfig = typeof StorageConfig.Type

const Section = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const AkmConfig = Schema.Struct({
  defaultBundle: Schema.optional(BundleName),
  bundles: Schema.optionalWith(Schema.Record({ key: BundleName, value: BundleConfig }), { default: () => ({}) }),
  search: Schema.optional(Schema.Struct({
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_LIMIT))),
    /** Hybrid retrieval through an OpenAI-compatible embeddings endpoint (R-SRCH-4); off when absent. */
    embeddings: Schema.optional(EmbeddingsConfig)
  })),
  /** How deep the bundle walk descends (default 64, BundleFilesNode.ts): deeper directories are a `too-deep` diagnostic. */
  index: Schema.optional(Schema.Struct({ maxDepth: Schema.optional(Schema.Int.pipe(Schema.between(1, 100_000))) })),
  website: Schema.optional(Schema.Struct({ allowHosts: Schema.optional(Schema.Array(Schema.String)) })),
  /** The npm registry npm: sources resolve against (default https://registry.npmjs.org). */
  npm: Schema.optional(Schema.Struct({ registry: Schema.optional(Schema.String.pipe(Schema.minLength(1))) })),
  /** Where `akm registry search` looks (spec 02 §3); discovery only, never mixed into local search. */
  registries: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String.pipe(Schema.minLength(1)),
    kind: Schema.optional(Schema.Literal("static", "npm")),
    url: Schema.String.pipe(Schema.minLength(1))
  }))),
  /** The memory tier's water marks and retention (spec 06 §8.2); defaults in MemoryPolicy.ts. */
  memory: Schema.optional(MemorySection),
  /** The runtime (spec 07): the argv that `prompt:` workflow steps go to (prompt on stdin), and a plain file akm edits instead of the user's crontab. */
  runtime: Schema.optional(Schema.Struct({
    agentCommand: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1))).pipe(Schema.minItems(1))),
    crontabFile: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
  })),
  /** `akm mcp --http`: the bearer token as a credential reference (spec 01 §6; default env:AKM_MCP_TOKEN). */
  mcp: Schema.optional(Schema.Struct({ token: Schema.optional(Schema.String.pipe(Schema.minLength(1))) })),
  // Sections owned by later capabilities; their own schemas validate them there.
  improve: Schema.optional(Section),
  policy: Schema.optional(Section),
  proposals: Schema.optional(Schema.Struct({ retentionDays: Schema.optional(Schema.Int.pipe(Schema.positive())) })),
  logs: Schema.optional(Schema.Struct({ retentionDays: Schema.optional(Schema.Int.pipe(Schema.positive())) })),
  /**
   * Where state lives (docs/team.md): sqlite (default, the three files under $DATA) or postgres, whose URL is a
   * credential reference (spec 01 §6; default env:AKM_DATABASE_URL), so a password never sits in this file.
   */
  storage: Schema.optional(StorageConfig),
  /** Strings the redactor never touches even when they look like secrets (spec 08 §2.1): public ids, test fixtures. */
  sensitive: Schema.optional(Schema.Struct({ allow: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1)))) }))
})
export type AkmConfig = typeof AkmConfig.Type

/** Sources that akm only ever reads from a cache copy (R-WS-6). */
export const isReadOnlyKind = (kind: SourceKind): boolean => kind === "npm" || kind === "website"

/** Filesystem sources are writable unless said otherwise; everything else read-only. */
export const isWritable = (bundle: BundleConfig): boolean =>
  bundle.writable ?? (bundle.source.kind === "filesystem")

/** Cross-field rules that a schema of one field cannot express. */
export const configProblems = (config: AkmConfig): ReadonlyArray<{ path: string; reason: string }> => {
  const problems: Array<{ path: string; reason: string }> = []
  if (config.defaultBundle !== undefined && !(config.defaultBundle in config.bundles)) {
    problems.push({ path: "defaultBundle", reason: `names bundle '${config.defaultBundle}', which is not configured` })
  }
  for (const [name, bundle] of Object.entries(config.bundles)) {
    if (bundle.writable === true && isReadOnlyKind(bundle.source.kind)) {
      problems.push({ path: `bundles.${name}.writable`, reason: `${bundle.source.kind} sources are read-only copies and cannot be writable` })
    }
  }
  if (config.storage?.kind === "sqlite" && config.storage.url !== undefined) {
    problems.push({ path: "storage.url", reason: "is used only with kind: postgres; remove it or set kind: postgres" })
  }
  problems.push(...memoryPolicyProblems(config.memory))
  problems.push(...generatorConfigProblems(config.improve, config.website?.allowHosts ?? []))
  return problems
}

/** Parses "12h"-style intervals into milliseconds. */
export const intervalMillis = (interval: string): number => {
  const match = /^(\d+)(s|m|h|d|w)$/.exec(interval)
  if (match === null) return Number.NaN
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as "s" | "m" | "h" | "d" | "w"]
  return Number(match[1]) * unit
}
