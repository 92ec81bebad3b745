import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, Layer, Scope } from "effect"
import type { ConfigInvalid } from "../../domain/Errors.js"
import { generatorSettings, parseGeneratorSection, type GeneratorSection, type GeneratorSettings } from "../../domain/GeneratorConfig.js"
import { Credentials } from "../../services/Credentials.js"
import { GenerationFailed, Generator } from "../../services/Generator.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { makeHttpClient } from "../http/BundleHttpClient.js"
import { trustedHttp } from "../http/BundleHttp.js"
import { generatorCallStore } from "../sqlite/GeneratorCalls.js"
import { StateDb } from "../sqlite/StateDb.js"
import { makeAgentGenerator } from "./AgentPackets.js"
import { makeModelGenerator, type ModelProvider } from "./ModelGenerator.js"
import { makeNoGenerator } from "./GeneratorNone.js"

/**
 * The generator config.yaml chooses (`improve.generator`, spec 06 §5). Cheap
 * to build: nothing is resolved, connected or imported until the first
 * generate() — @effect/ai's provider modules load then (dynamic import, a
 * separate chunk), so no other command pays for them at start-up.
 */

export type GeneratorRequirements = WorkspaceConfig | Credentials | Redactor | StateDb

const hostOf = (baseUrl: string): string => (URL.canParse(baseUrl) ? new URL(baseUrl).host : baseUrl)

export const generatorId = (settings: GeneratorSettings): string =>
  settings.kind === "openai-compatible" || settings.kind === "anthropic" ? `${settings.kind}:${settings.model}@${hostOf(settings.baseUrl)}` : settings.kind

/** The key: the configured reference (must resolve), else the first of the default chain that is set, else none (a local server). */
const resolveKey = (credentials: Credentials["Type"], settings: GeneratorSettings, explicit: boolean) =>
  explicit
    ? credentials.resolve(settings.apiKeys[0] ?? "").pipe(
      Effect.mapError((e) => new GenerationFailed("refused", `improve.generator.apiKey ${e.reference}: ${e.message}; ${e.hint}`))
    )
    : credentials.firstAvailable(settings.apiKeys)

const buildProvider = (settings: GeneratorSettings, explicitKey: boolean) =>
  Effect.gen(function* () {
    const credentials = yield* Credentials
    const apiKey = yield* resolveKey(credentials, settings, explicitKey)
    // The operator's endpoint is trusted (spec 01 §6); the client still bounds time and size.
    const safe = yield* Effect.acquireRelease(
      Effect.sync(() => trustedHttp({ timeoutMs: settings.timeoutMs, maxBytes: settings.maxOutputBytes, maxRedirects: 0 })),
      (client) => client.close
    )
    const http = makeHttpClient(safe)
    const provider: ModelProvider = settings.kind === "anthropic"
      ? yield* Effect.flatMap(Effect.promise(() => import("./Anthropic.js")), (m) => m.makeAnthropicProvider(settings, apiKey))
        .pipe(Effect.provideService(HttpClient.HttpClient, http))
      : yield* Effect.flatMap(Effect.promise(() => import("./OpenAiCompatible.js")), (m) => m.makeOpenAiProvider(settings, apiKey))
        .pipe(Effect.provideService(HttpClient.HttpClient, http))
    return provider
  })

/** A generator for a section as config.yaml would hold it (tests and embedders point it anywhere). */
export const makeGenerator = (section: GeneratorSection | undefined): Effect.Effect<Generator["Type"], never, GeneratorRequirements | Scope.Scope> =>
  Effect.gen(function* () {
    const settings = generatorSettings(section)
    const redactor = yield* Redactor
    switch (settings.kind) {
      case "none":
        return makeNoGenerator()
      case "scripted":
        return makeNoGenerator("kind scripted answers only inside a program that provides its script (GeneratorScripted)")
      case "agent":
        return makeAgentGenerator((yield* WorkspaceConfig).paths.packetsDir, redactor)
      case "openai-compatible":
      case "anthropic": {
        const scope = yield* Effect.scope
        const context = yield* Effect.context<Credentials>()
        const provider = yield* Effect.cached(Scope.extend(buildProvider(settings, section?.apiKey !== undefined), scope).pipe(Effect.provide(context)))
        return makeModelGenerator({ id: generatorId(settings), settings, provider, redactor, calls: generatorCallStore(yield* StateDb) })
      }
    }
  })

export const GeneratorFromSection = (section: GeneratorSection | undefined): Layer.Layer<Generator, never, GeneratorRequirements> =>
  Layer.scoped(Generator, makeGenerator(section))

/** The generator config.yaml names; the config was validated when read (configProblems), so a bad section never gets here. */
export const GeneratorLive: Layer.Layer<Generator, ConfigInvalid, GeneratorRequirements> = Layer.scoped(
  Generator,
  Effect.gen(function* () {
    const config = yield* (yield* WorkspaceConfig).read
    return yield* makeGenerator(Either.getOrUndefined(parseGeneratorSection(config.improve)))
  })
)
