import { Either, ParseResult, Schema } from "effect"

/**
 * config.yaml `improve.generator` (spec 01 §2, spec 06 §5): which generator
 * Improve asks for candidates. A credential is never a literal (spec 01 §6):
 * `apiKey` is `env:VAR` or `secret:<ref>`.
 */

export const GENERATOR_KINDS = ["openai-compatible", "anthropic", "agent", "scripted", "none"] as const
export type GeneratorKind = (typeof GENERATOR_KINDS)[number]

/** The defaults in one place. */
export const GENERATOR_DEFAULTS = {
  openAiBaseUrl: "https://api.openai.com/v1",
  anthropicBaseUrl: "https://api.anthropic.com",
  timeoutMs: 120_000,
  /** A whole answer, bytes: a bigger body is "too-large", read no further. */
  maxOutputBytes: 4 * 1024 * 1024,
  /** Tokens the model may write (Anthropic requires a bound). */
  maxOutputTokens: 8192
} as const

const credentialReference = /^(env:[A-Za-z_][A-Za-z0-9_]*|secret:\S+)$/

export const CredentialReference = Schema.String.pipe(
  Schema.filter((value) => credentialReference.test(value), {
    message: () => "must be a reference, env:VAR or secret:<ref>, never the key itself (put the key in an environment variable or `akm secret set`)"
  })
)

const PositiveInt = Schema.Int.pipe(Schema.positive())

export const GeneratorSection = Schema.Struct({
  kind: Schema.Literal(...GENERATOR_KINDS),
  baseUrl: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  model: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  apiKey: Schema.optional(CredentialReference),
  timeoutMs: Schema.optional(PositiveInt),
  maxOutputBytes: Schema.optional(PositiveInt),
  maxOutputTokens: Schema.optional(PositiveInt),
  /** USD per million tokens, for the cost column of the accounting; unset → cost unknown. */
  price: Schema.optional(Schema.Struct({ inputPerMTok: Schema.Number.pipe(Schema.nonNegative()), outputPerMTok: Schema.Number.pipe(Schema.nonNegative()) }))
})
export type GeneratorSection = typeof GeneratorSection.Type

/** The generator in force, defaults applied. */
export interface GeneratorSettings {
  readonly kind: GeneratorKind
  readonly baseUrl: string
  readonly model: string
  /** References tried in order; the first that resolves is the key (none: no auth header, a local server). */
  readonly apiKeys: ReadonlyArray<string>
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  readonly maxOutputTokens: number
  readonly price?: { readonly inputPerMTok: number; readonly outputPerMTok: number } | undefined
}

/** The default key chain (spec 01 §6): AKM_GENERATOR_API_KEY, then the provider's own variable. */
export const defaultKeyChain = (kind: GeneratorKind): ReadonlyArray<string> =>
  kind === "openai-compatible" ? ["env:AKM_GENERATOR_API_KEY", "env:OPENAI_API_KEY"]
    : kind === "anthropic" ? ["env:AKM_GENERATOR_API_KEY", "env:ANTHROPIC_API_KEY"]
    : []

const decodeSection = Schema.decodeUnknownEither(GeneratorSection, { onExcessProperty: "error" })

/** `improve.generator` as written, or the problem with its config path (for configProblems, exit 78). */
export const parseGeneratorSection = (improve: Readonly<Record<string, unknown>> | undefined): Either.Either<GeneratorSection | undefined, { path: string; reason: string }> => {
  const raw = improve?.["generator"]
  if (raw === undefined || raw === null) return Either.right(undefined)
  return decodeSection(raw).pipe(
    Either.mapLeft((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      const sub = issue === undefined || issue.path.length === 0 ? "" : `.${issue.path.join(".")}`
      return { path: `improve.generator${sub}`, reason: issue?.message ?? "is not a valid generator" }
    }),
    Either.flatMap((section) => {
      const needsModel = section.kind === "openai-compatible" || section.kind === "anthropic"
      return needsModel && section.model === undefined
        ? Either.left({ path: "improve.generator.model", reason: `is required for kind ${section.kind} (the model name the server knows, e.g. qwen3 or gpt-4.1-mini)` })
        : Either.right(section)
    })
  )
}

const isLoopbackHost = (host: string): boolean => {
  const bare = (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host).toLowerCase().replace(/\.$/, "")
  return bare === "localhost" || bare.endsWith(".localhost") || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
}

/**
 * The base URL is trusted operator configuration (spec 01 §6): no address
 * check. Plain http only to this machine (a local Ollama, llama.cpp or vLLM)
 * or to a host the operator lists in website.allowHosts; anything else
 * would send prompts and the key in clear text.
 */
export const baseUrlProblem = (baseUrl: string, allowHosts: ReadonlyArray<string>): string | undefined => {
  if (!URL.canParse(baseUrl)) return "is not a URL (e.g. http://127.0.0.1:11434/v1 or https://api.openai.com/v1)"
  const url = new URL(baseUrl)
  if (url.protocol !== "https:" && url.protocol !== "http:") return `scheme ${url.protocol} is not allowed; use https (or http for a server on this machine)`
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password; put the key in apiKey (env:VAR or secret:<ref>)"
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    const allowed = allowHosts.map((h) => h.toLowerCase().replace(/^\[|\]$/g, ""))
    if (!allowed.includes(url.hostname.toLowerCase().replace(/^\[|\]$/g, "")))
      return `plain http to ${url.hostname} is refused (prompts and the key would travel unencrypted); use https, or add "${url.hostname}" to website.allowHosts if you trust that network`
  }
  return undefined
}

/** For configProblems: the generator section's one problem, if any. */
export const generatorConfigProblems = (improve: Readonly<Record<string, unknown>> | undefined, allowHosts: ReadonlyArray<string> = []): ReadonlyArray<{ path: string; reason: string }> =>
  Either.match(parseGeneratorSection(improve), {
    onLeft: (problem) => [problem],
    onRight: (section) => {
      const problem = section?.baseUrl === undefined ? undefined : baseUrlProblem(section.baseUrl, allowHosts)
      return problem === undefined ? [] : [{ path: "improve.generator.baseUrl", reason: problem }]
    }
  })

/** The messages API lives at <root>/v1/messages: a base URL written with /v1 (as for OpenAI) means the root. */
const baseUrlOf = (kind: GeneratorKind, written: string | undefined): string => {
  const url = (written ?? (kind === "anthropic" ? GENERATOR_DEFAULTS.anthropicBaseUrl : GENERATOR_DEFAULTS.openAiBaseUrl)).replace(/\/+$/, "")
  return kind === "anthropic" ? url.replace(/\/v1$/, "") : url
}

/** Settings with defaults; no section → kind "none" (R-GEN-3). */
export const generatorSettings = (section: GeneratorSection | undefined): GeneratorSettings => {
  const kind = section?.kind ?? "none"
  return {
    kind,
    baseUrl: baseUrlOf(kind, section?.baseUrl),
    model: section?.model ?? "",
    apiKeys: section?.apiKey !== undefined ? [section.apiKey] : defaultKeyChain(kind),
    timeoutMs: section?.timeoutMs ?? GENERATOR_DEFAULTS.timeoutMs,
    maxOutputBytes: section?.maxOutputBytes ?? GENERATOR_DEFAULTS.maxOutputBytes,
    maxOutputTokens: section?.maxOutputTokens ?? GENERATOR_DEFAULTS.maxOutputTokens,
    price: section?.price
  }
}

/** USD for one call, when a price is configured. */
export const callCost = (settings: GeneratorSettings, usage: { readonly inputTokens: number; readonly outputTokens: number }): number | undefined =>
  settings.price === undefined
    ? undefined
    : (usage.inputTokens * settings.price.inputPerMTok + usage.outputTokens * settings.price.outputPerMTok) / 1_000_000
