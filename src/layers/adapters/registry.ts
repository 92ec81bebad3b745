import { Effect, Layer } from "effect"
import type { BundleAdapter, ProbeContext } from "../../domain/Adapter.js"
import { Adapters, type AdapterInfo } from "../../services/Adapters.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { agentSkillsAdapter } from "./agent-skills/index.js"
import { akmTaskAdapter } from "./akm-task/index.js"
import { akmWorkflowAdapter } from "./akm-workflow/index.js"
import { akmAdapter } from "./akm/index.js"
import { claudeAdapter } from "./claude/index.js"
import { dotenvAdapter } from "./dotenv/index.js"
import { genericFilesAdapter } from "./generic-files/index.js"
import { llmWikiAdapter } from "./llm-wiki/index.js"
import { okfAdapter } from "./okf/index.js"
import { opencodeAdapter } from "./opencode/index.js"
import { projectAdapter } from "./project/index.js"
import { websiteSnapshotAdapter } from "./website-snapshot/index.js"

/**
 * The static registry of built-in adapters (spec 03 §2) and the ordered
 * selection of spec 03 §1.2. Selection only reads through a ProbeContext, so
 * it never writes (R-AD-6).
 */
export interface AdapterRegistry {
  /** Adapters whose probes run, in this order; the first true wins. */
  readonly probeOrder: ReadonlyArray<BundleAdapter>
  /** Chosen when no probe matches and the root holds markdown (OKF is the lenient markdown baseline). */
  readonly markdownFallback: BundleAdapter
  /** Chosen when no probe matches and there is no markdown. */
  readonly otherFallback: BundleAdapter
}

/** Spec 03 §1.2: the probe order; okf is both the last probe and the markdown fallback. */
export const builtInRegistry: AdapterRegistry = {
  probeOrder: [
    projectAdapter,
    websiteSnapshotAdapter,
    agentSkillsAdapter,
    claudeAdapter,
    opencodeAdapter,
    dotenvAdapter,
    akmWorkflowAdapter,
    akmTaskAdapter,
    llmWikiAdapter,
    akmAdapter,
    okfAdapter
  ],
  markdownFallback: okfAdapter,
  otherFallback: genericFilesAdapter
}

/** Every adapter of a registry once, in probe order with the fallbacks last. */
export const registryAdapters = (registry: AdapterRegistry): ReadonlyArray<BundleAdapter> => {
  const all = [...registry.probeOrder, registry.markdownFallback, registry.otherFallback]
  return all.filter((adapter, i) => all.findIndex((a) => a.id === adapter.id) === i)
}

export const adapterInfo = (adapter: BundleAdapter): AdapterInfo => ({
  id: adapter.id,
  version: adapter.version,
  description: adapter.description,
  writable: adapter.writable
})

const isVisibleMarkdown = (p: string): boolean => /\.md$/i.test(p) && !p.split("/").some((segment) => segment.startsWith("."))

/** Runs the probes in order (a probe that dies counts as "no"), then the fallback rule. */
export const selectAdapter = (registry: AdapterRegistry, ctx: ProbeContext): Effect.Effect<BundleAdapter> =>
  Effect.gen(function* () {
    for (const adapter of registry.probeOrder) {
      const matches = yield* Effect.suspend(() => adapter.probe(ctx)).pipe(Effect.catchAllDefect(() => Effect.succeed(false)))
      if (matches) return adapter
    }
    const markdown = yield* ctx.find(isVisibleMarkdown, 1)
    return markdown.length > 0 ? registry.markdownFallback : registry.otherFallback
  })

/** The Adapters service over a registry; probes read through BundleFiles.probeContext. */
export const makeAdapters = (registry: AdapterRegistry, files: BundleFiles["Type"]): Adapters["Type"] => {
  const adapters = registryAdapters(registry)
  const infos = adapters.map(adapterInfo)
  return Adapters.of({
    list: infos,
    get: (id) => infos.find((a) => a.id === id),
    adapter: (id) => adapters.find((a) => a.id === id),
    detect: (root) => selectAdapter(registry, files.probeContext(root)).pipe(Effect.map(adapterInfo))
  })
}

export const AdaptersBuiltIn = Layer.effect(Adapters, Effect.map(BundleFiles, (files) => makeAdapters(builtInRegistry, files)))
