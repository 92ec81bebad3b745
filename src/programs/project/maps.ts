import { Effect } from "effect"
import { Conflict } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { componentsOf, COMPONENTS_INTRO, COMPONENTS_PATH, driftedRows, firstLine, isManifest, parseManifest, renderComponents, renderStack, STACK_INTRO, STACK_PATH, type Dependency, type ManifestProblem } from "../../domain/project/Maps.js"
import { BEGIN, END, readRegion, withRegion } from "../../domain/project/Regions.js"
import { utf8Bytes } from "../../domain/project/Routers.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import type { DirectResult } from "../proposals/direct.js"
import { hashOf, projectFileList, proposeProject, readOptional, refuseOutside } from "./files.js"
import type { ProjectInput } from "./rules.js"

interface MapPlan {
  readonly path: string
  readonly intro: string
  readonly inner: string
}

const readAll = (target: ProjectTarget, paths: ReadonlyArray<string>) =>
  Effect.forEach(paths, (p) => Effect.map(Effect.orElseSucceed(readOptional(target, p), () => undefined), (text) => ({ path: p, text: text ?? "" })))

/** What the two maps should hold, from the tracked files, the manifests, ADRs, ledger records and READMEs. */
const renderMaps = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const { files } = yield* projectFileList(target)
    const manifests = files.filter(isManifest)
    const deps: Array<Dependency> = []
    const problems: Array<ManifestProblem> = []
    for (const m of yield* readAll(target, manifests)) {
      const parsed = parseManifest(m.path, m.text)
      if ("problem" in parsed) problems.push(parsed.problem)
      else deps.push(...parsed.deps)
    }
    // ADRs and ledger records: the tracked ones, and ledger records not yet committed.
    const documents = yield* readAll(target, [...new Set(files.filter((f) => /^docs\/adr\/.*\.md$/.test(f) || /^\.ai\/ledger\/[^/]+\/[^/]+\.md$/.test(f)))].sort())
    const components = componentsOf(files)
    const readmes = yield* readAll(target, components.flatMap((c) => (c.readme === undefined ? [] : [c.readme])))
    const summaries = new Map(readmes.map((r) => [r.path, firstLine(r.text)]))
    const plans: ReadonlyArray<MapPlan> = [
      { path: STACK_PATH, intro: STACK_INTRO, inner: renderStack(deps, documents) },
      { path: COMPONENTS_PATH, intro: COMPONENTS_INTRO, inner: renderComponents(components.map((c) => ({ ...c, ...(c.readme === undefined ? {} : { summary: summaries.get(c.readme) ?? "" }) }))) }
    ]
    return { plans, problems, dependencies: deps.length, components: components.length }
  })

export interface MapFileResult {
  readonly path: string
  readonly action: "created" | "updated" | "unchanged"
  readonly bytes: number
}

export interface MapsWrite {
  readonly bundle: string
  readonly files: ReadonlyArray<MapFileResult>
  readonly dependencies: number
  readonly components: number
  readonly problems: ReadonlyArray<ManifestProblem>
  readonly proposal?: DirectResult
}

const brokenMarkers = (path: string, line: number, message: string) =>
  new Conflict({ message: `${path}:${line}: ${message}`, hint: "fix the markers by hand (one begin line, then one end line), then run it again; nothing was written" })

/** `akm maps write` (R-PRJ-4): the generated regions of both maps, one mechanical proposal; prose outside the markers kept. */
export const mapsWrite = Effect.fn("maps.write")(function* (input: ProjectInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const { plans, problems, dependencies, components } = yield* renderMaps(target)
  const changes: Array<FileChange> = []
  const files: Array<MapFileResult> = []
  for (const plan of plans) {
    yield* refuseOutside(target, plan.path)
    const current = yield* readOptional(target, plan.path)
    let after: string
    if (current === undefined) after = `${plan.intro}${BEGIN}\n${plan.inner}${END}\n`
    else {
      const read = readRegion(current)
      if (read._tag === "Broken") return yield* brokenMarkers(plan.path, read.line, read.message)
      // A map without markers is taken over keeping its text above the region: maps are akm's, the prose is kept.
      after = read._tag === "NoMarkers" ? withRegion({ before: `${current}${current.endsWith("\n") ? "" : "\n"}\n`, after: "" }, plan.inner) : withRegion(read.region, plan.inner)
    }
    if (after === current) {
      files.push({ path: plan.path, action: "unchanged", bytes: utf8Bytes(current) })
      continue
    }
    changes.push({ bundle: target.name, path: plan.path, beforeHash: yield* hashOf(target, plan.path, current !== undefined), after })
    files.push({ path: plan.path, action: current === undefined ? "created" : "updated", bytes: utf8Bytes(after) })
  }
  const proposal = changes.length === 0 ? undefined : yield* proposeProject(target, { title: `Write ${changes.map((c) => c.path).join(" and ")}`, recipe: "maps", changeClass: "mechanical", changes })
  return { bundle: target.name, files, dependencies, components, problems, ...(proposal === undefined ? {} : { proposal }) } satisfies MapsWrite as MapsWrite
})

export interface MapDrift {
  readonly path: string
  readonly line?: number
  readonly rows: ReadonlyArray<string>
  readonly message: string
}

export interface MapsCheck {
  readonly bundle: string
  readonly drift: ReadonlyArray<MapDrift>
  readonly problems: ReadonlyArray<ManifestProblem>
  readonly ok: boolean
}

/** The maps drift checker (R-PRJ-4, R-CHK-1). */
export const checkMaps = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const { plans, problems } = yield* renderMaps(target)
    const drift: Array<MapDrift> = []
    for (const plan of plans) {
      const current = yield* Effect.orElseSucceed(readOptional(target, plan.path), () => undefined)
      if (current === undefined) {
        drift.push({ path: plan.path, rows: [], message: "missing: run akm maps write" })
        continue
      }
      const read = readRegion(current)
      if (read._tag === "Broken") drift.push({ path: plan.path, line: read.line, rows: [], message: read.message })
      else if (read._tag === "NoMarkers") drift.push({ path: plan.path, rows: [], message: "has no akm:generated markers: run akm maps write" })
      else if (read.region.inner !== plan.inner) {
        const rows = driftedRows(read.region.inner, plan.inner)
        drift.push({ path: plan.path, rows, message: rows.length === 0 ? "the generated table differs: run akm maps write" : `rows differ: ${rows.slice(0, 5).join(", ")}${rows.length > 5 ? ` (+${rows.length - 5} more)` : ""}; run akm maps write` })
      }
    }
    return { bundle: target.name, drift, problems, ok: drift.length === 0 } satisfies MapsCheck as MapsCheck
  })

/** `akm maps check`: exits 1 naming each drifted map. */
export const mapsCheck = Effect.fn("maps.check")(function* (input: ProjectInput = {}) {
  return yield* checkMaps(yield* resolveProjectBundle(input))
})
