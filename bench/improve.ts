// The improve benchmark (spec 06 §6, issue 18 item 6): runs `akm improve`'s
// program on the committed fixture (bench/fixtures/improve/fixture.json) once
// per candidate variant — the scripted generator playing a good model, then
// three bad ones (keyword stuffing, dropped facts, a change outside the
// allowed fields) — and reports the gate's precision and recall on the
// tuning and held-out halves, the retrieval lift on trigger queries, the wall
// time of one run and the model calls of a second identical run. Prints JSON.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect, Layer } from "effect"
import type { EvidenceInput } from "../src/domain/Evidence.js"
import type { RunRecord } from "../src/domain/Improve.js"
import { makeAkmLive } from "../src/layers/AkmLive.js"
import { ImproveComposed } from "../src/layers/improve/ImproveLive.js"
import { improve } from "../src/programs/improve.js"
import { indexBundles } from "../src/programs/indexBundles.js"
import { ProposalStore } from "../src/services/ProposalStore.js"
import type { CandidateFile } from "../src/services/Generator.js"
import { benchEvidence, scriptedModel } from "./improveGenerator.js"

interface Defect {
  readonly id: string
  readonly kind: string
  readonly recipe: "revise" | "learn"
  readonly split: "tuning" | "held-out"
  readonly target: string
  readonly evidence: ReadonlyArray<EvidenceInput>
  readonly candidates: Readonly<Record<string, ReadonlyArray<CandidateFile>>>
}

const fixture = JSON.parse(readFileSync(new URL("./fixtures/improve/fixture.json", import.meta.url), "utf8")) as {
  readonly bundle: string
  readonly corpus: Readonly<Record<string, string>>
  readonly defects: ReadonlyArray<Defect>
}
const VARIANTS = ["good", "stuffing", "dropped-facts", "outside-allowed"] as const

/** The defect a request is about: its target ref (revise) or its question (learn). */
const defectOf = (request: { readonly targets: ReadonlyArray<{ readonly ref?: string | undefined }>; readonly evidence: ReadonlyArray<{ readonly query?: string | undefined }> }) =>
  fixture.defects.find((d) => (d.recipe === "revise" ? d.target === request.targets[0]?.ref : d.target === `learn:${request.evidence[0]?.query}`))

const workspace = () => {
  const base = mkdtempSync(join(tmpdir(), "akm-bench-improve-"))
  const root = join(base, "notes")
  for (const [file, text] of Object.entries(fixture.corpus)) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), text)
  }
  mkdirSync(join(base, "config"))
  writeFileSync(join(base, "config", "config.yaml"), `defaultBundle: notes\nbundles:\n  notes:\n    source: { kind: filesystem, path: ${JSON.stringify(root)} }\n    adapter: akm\n`)
  return { base, options: { configDir: join(base, "config"), dataDir: join(base, "data"), cacheDir: join(base, "cache"), quiet: true } }
}

const variantRun = async (variant: (typeof VARIANTS)[number], repeat: boolean) => {
  const ws = workspace()
  const model = scriptedModel(variant, (request) => defectOf(request)?.candidates[variant] ?? [])
  const evidence = benchEvidence(fixture.defects.flatMap((d) => d.evidence))
  const live = makeAkmLive(ws.options)
  const layer = ImproveComposed.pipe(Layer.provide(Layer.merge(evidence, model.layer)), Layer.provideMerge(live))
  try {
    return await Effect.runPromise(Effect.gen(function* () {
      yield* indexBundles({})
      const started = performance.now()
      const first = yield* improve({ limit: 1000 })
      const wallMs = performance.now() - started
      const calls = model.calls.n
      const run = (first as { run: RunRecord }).run
      const second = repeat ? ((yield* improve({ limit: 1000 })) as { run: RunRecord }).run : undefined
      const store = yield* ProposalStore
      const proposals = yield* Effect.forEach(run.proposals, (id) => store.get(id))
      return { run, wallMs, calls, secondCalls: second === undefined ? undefined : model.calls.n - calls, secondModelCalls: second?.modelCalls, proposals }
    }).pipe(Effect.provide(layer), Effect.scoped))
  } finally {
    rmSync(ws.base, { recursive: true, force: true })
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000

const main = async () => {
  const accepted = new Map<string, boolean>()
  const reasons: Record<string, string> = {}
  let good: Awaited<ReturnType<typeof variantRun>> | undefined
  for (const variant of VARIANTS) {
    const result = await variantRun(variant, variant === "good")
    if (variant === "good") good = result
    for (const t of result.run.targets) {
      const d = fixture.defects.find((x) => (x.recipe === "revise" ? x.target === t.target : t.target.endsWith(`: ${x.target.slice("learn:".length)}`)))
      if (d === undefined) continue
      const ok = t.outcome === "proposed" || t.outcome === "auto-applied"
      accepted.set(`${d.id}/${variant}`, ok)
      if ((variant === "good") !== ok) reasons[`${d.id}/${variant}`] = `${t.outcome}: ${t.reason ?? ""}`.slice(0, 300)
    }
  }
  const score = (split: "tuning" | "held-out" | "all") => {
    const defects = fixture.defects.filter((d) => split === "all" || d.split === split)
    const goodAccepted = defects.filter((d) => accepted.get(`${d.id}/good`) === true).length
    const badAccepted = defects.flatMap((d) => VARIANTS.slice(1).map((v) => accepted.get(`${d.id}/${v}`) === true)).filter(Boolean).length
    const bads = defects.length * (VARIANTS.length - 1)
    return {
      defects: defects.length,
      goodAccepted,
      badAccepted,
      badRejected: bads - badAccepted,
      precision: round(goodAccepted + badAccepted === 0 ? 1 : goodAccepted / (goodAccepted + badAccepted)),
      recall: round(goodAccepted / defects.length),
      badRejectionRate: round((bads - badAccepted) / bads)
    }
  }
  const lifts = (good?.proposals ?? []).flatMap((p) => {
    const m = p?.evaluation?.metrics
    return m === undefined || (m["l2.triggers"] ?? 0) === 0 ? [] : [{ before: m["l2.trigger.mrr.before"]!, after: m["l2.trigger.mrr.after"]! }]
  })
  const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
  const out = {
    defects: fixture.defects.length,
    kinds: [...new Set(fixture.defects.map((d) => d.kind))],
    variants: VARIANTS,
    tuning: score("tuning"),
    heldOut: score("held-out"),
    all: score("all"),
    triggerLift: { proposals: lifts.length, mrrBefore: round(mean(lifts.map((l) => l.before))), mrrAfter: round(mean(lifts.map((l) => l.after))), lift: round(mean(lifts.map((l) => l.after - l.before))) },
    run: { attempts: good?.calls, wallMs: Math.round(good?.wallMs ?? 0), modelCalls: good?.run.modelCalls, secondRunModelCalls: good?.secondModelCalls, secondRunGeneratorCalls: good?.secondCalls },
    misjudged: reasons
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`)
  process.exitCode = 1
})
