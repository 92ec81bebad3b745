import { Effect, Either } from "effect"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { ValidateContext } from "../../../domain/Adapter.js"
import { defaultProjectConfig, parseProjectConfig } from "../../../domain/ledger/ProjectConfig.js"
import { componentsOf, COMPONENTS_PATH, driftedRows, firstLine, isManifest, parseManifest, renderComponents, renderStack, STACK_PATH, type Dependency } from "../../../domain/project/Maps.js"
import { readRegion } from "../../../domain/project/Regions.js"
import { enabledTargets } from "../../../domain/project/RouterTargets.js"
import { checkRouter, CONTRACT_PATH, parseContract } from "../../../domain/project/Routers.js"
import type { RuleBook } from "../core/RuleBook.js"

const read = (ctx: ValidateContext, path: string) => (ctx.exists(path) ? Effect.orElseSucceed(ctx.readText(path), () => undefined) : Effect.succeed(undefined))

/**
 * Router drift (spec 08 R-PRJ-1) as lint findings: once a project has any
 * generated router, each enabled target must match the contract. A project
 * that never wrote routers is not nagged.
 */
const routerDrift = (ctx: ValidateContext, book: RuleBook) =>
  Effect.gen(function* () {
    const contractText = yield* read(ctx, CONTRACT_PATH)
    if (contractText === undefined) return [] as ReadonlyArray<Diagnostic>
    const configText = yield* read(ctx, ".ai/config.json")
    const parsed = configText === undefined ? undefined : parseProjectConfig(configText)
    const config = parsed !== undefined && Either.isRight(parsed) ? parsed.right.config : defaultProjectConfig
    const { targets } = enabledTargets(config)
    const contract = parseContract(contractText)
    const texts = yield* Effect.forEach(targets, (t) => read(ctx, t.path))
    const generated = texts.some((text) => text !== undefined && readRegion(text)._tag !== "NoMarkers")
    if (!generated) return []
    if ("problem" in contract) return book.report("router-drift", CONTRACT_PATH, contract.problem.message, { line: contract.problem.line })
    return targets.flatMap((t, i) => {
      const drift = checkRouter(contract.contract, t, texts[i])
      return drift === undefined ? [] : book.report("router-drift", t.path, drift.message, drift.line === undefined ? {} : { line: drift.line })
    })
  })

/**
 * Map drift (R-PRJ-4): once a map exists, its generated region must match the
 * tree. Lint reads the working tree (what the walk lists, .gitignore
 * honoured); `akm maps check` reads git's index — an untracked new README
 * shows here first.
 */
const mapDrift = (ctx: ValidateContext, book: RuleBook) =>
  Effect.gen(function* () {
    const stackText = yield* read(ctx, STACK_PATH)
    const componentsText = yield* read(ctx, COMPONENTS_PATH)
    if (stackText === undefined && componentsText === undefined) return [] as ReadonlyArray<Diagnostic>
    const files = ctx.files.map((f) => f.path).sort()
    const out: Array<Diagnostic> = []
    const compare = (path: string, text: string | undefined, expected: string) => {
      if (text === undefined) return
      const region = readRegion(text)
      if (region._tag === "Broken") out.push(...book.report("map-drift", path, region.message, { line: region.line }))
      else if (region._tag === "NoMarkers") out.push(...book.report("map-drift", path, "has no akm:generated markers: run akm maps write"))
      else if (region.region.inner !== expected) {
        const rows = driftedRows(region.region.inner, expected)
        out.push(...book.report("map-drift", path, `rows differ${rows.length === 0 ? "" : `: ${rows.slice(0, 5).join(", ")}`}; run akm maps write`))
      }
    }
    if (stackText !== undefined) {
      const deps: Array<Dependency> = []
      for (const manifest of files.filter(isManifest)) {
        const parsed = parseManifest(manifest, (yield* read(ctx, manifest)) ?? "")
        if ("deps" in parsed) deps.push(...parsed.deps)
      }
      const docs = yield* Effect.forEach(files.filter((f) => /^docs\/adr\/.*\.md$/.test(f) || /^\.ai\/ledger\/[^/]+\/[^/]+\.md$/.test(f)), (path) => Effect.map(read(ctx, path), (text) => ({ path, text: text ?? "" })))
      compare(STACK_PATH, stackText, renderStack(deps, docs))
    }
    if (componentsText !== undefined) {
      const components = componentsOf(files)
      const withSummary = yield* Effect.forEach(components, (c) => (c.readme === undefined ? Effect.succeed(c) : Effect.map(read(ctx, c.readme), (text) => ({ ...c, summary: firstLine(text ?? "") }))))
      compare(COMPONENTS_PATH, componentsText, renderComponents(withSummary))
    }
    return out
  })

/** The project's whole-bundle lint: generated routers and maps that drifted. */
export const lintProjectBundle = (book: RuleBook) => (ctx: ValidateContext): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.map(Effect.all([routerDrift(ctx, book), mapDrift(ctx, book)]), ([a, b]) => [...a, ...b])
