import { Effect, Layer } from "effect"
import type { BundleAdapter, ProbeContext } from "../../domain/Adapter.js"
import { Adapters, type AdapterInfo, type DetectionDoubt } from "../../services/Adapters.js"
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

const NESTED_SKILL = /^([^/]+)\/[^/]+\/SKILL\.md$/

/**
 * Issue 15 item 9: a root the lenient fallbacks took (okf, generic-files) whose skills sit one level
 * deeper than Agent Skills expects — `s1/<skill>/SKILL.md` — is a folder of agent-skills bundles,
 * not a markdown wiki; say so rather than report dozens of warnings.
 */
export const detectionDoubt = (chosen: BundleAdapter, ctx: ProbeContext): Effect.Effect<DetectionDoubt | undefined> =>
  chosen.id !== "okf" && chosen.id !== "generic-files"
    ? Effect.succeed(undefined)
    : Effect.map(ctx.find((p) => NESTED_SKILL.test(p) && !p.split("/").some((segment) => segment.startsWith(".")), 200), (found) => {
      const folders = [...new Set(found.map((p) => NESTED_SKILL.exec(p)![1]!))].sort()
      return folders.length === 0
        ? undefined
        : {
          adapter: agentSkillsAdapter.id,
          folders,
          reason: `skills sit one level deeper than Agent Skills expects (${folders[0]}/<skill>/SKILL.md)`
        }
    })

/** The Adapters service over a registry; probes read through BundleFiles.probeContext. */
export const makeAdapters = (registry: AdapterRegistry, files: BundleFiles["Type"]): Adapters["Type"] => {
  const adapters = registryAdapters(registry)
  const infos = adapters.map(adapterInfo)
  return Adapters.of({
    list: infos,
    get: (id) => infos.find((a) => a.id === id),
    adapter: (id) => adapters.find((a) => a.id === id),
    detect: (root) => {
      const ctx = files.probeContext(root)
      return Effect.flatMap(selectAdapter(registry, ctx), (chosen) =>
        Effect.map(detectionDoubt(chosen, ctx), (doubt) => (doubt === undefined ? adapterInfo(chosen) : { ...adapterInfo(chosen), doubt })))
    }
  })
}

export const AdaptersBuiltIn = Layer.effect(Adapters, Effect.map(BundleFiles, (files) => makeAdapters(builtInRegistry, files)))
