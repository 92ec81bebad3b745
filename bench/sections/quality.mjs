// The quality section (spec 10 §1): curate-golden composite for search and
// curate, the ranking-baseline expectations (both from ../shared/bench, when
// present) and the project's own natural-language set, run in-process; each
// next to its value before issue 25's ranking changes (bench/quality-before.json).
import { readFileSync } from "node:fs"
import { runStep } from "./driver.mjs"

export const QUALITY_TARGETS = { composite: 0.95, naturalNdcg: 0.92, naturalRecall: 0.97, heldOutNdcg: 0.95 }

const before = () => JSON.parse(readFileSync(new URL("../quality-before.json", import.meta.url), "utf8"))

export const qualitySection = async ({ onProgress }) => {
  onProgress("quality")
  return { ...(await runStep("quality", {})), targets: QUALITY_TARGETS, before: before() }
}

const f = (x) => (x === undefined ? "-" : x.toFixed(4))
const mark = (value, target, higher = true) => (value === undefined ? "" : (higher ? value >= target : value <= target) ? " ok" : " MISSED")

/** One half of the frozen split (judgments.json `split`): the held-out half carries the targets of issue 25. */
const halfRows = (label, half, was, targets) =>
  half === undefined
    ? []
    : [
      [`natural-language ${label}`, `nDCG@10 (${half.queries} queries)`, f(was?.ndcg), f(half.ndcg), targets === undefined ? "" : `≥ 0.95${mark(half.ndcg, targets.heldOutNdcg)}`],
      [`natural-language ${label}`, "Recall@10", f(was?.recall), f(half.recall), ""],
      [`natural-language ${label}`, "queries with a decoy / superseded item above a relevant one", was === undefined ? "-" : `${was.decoyAbove} / ${was.supersededAbove}`, `${half.decoyAbove} / ${half.supersededAbove}`, targets === undefined ? "" : `0${mark(half.decoyAbove, 0, false)}`]
    ]

export const qualityRows = (q) => {
  const b = q.before ?? {}
  const nl = q.naturalLanguage
  return [
    ["fixture", "measure", "before", "value", "target"],
    ...(q.curateGoldenSearch === undefined
      ? [["curate-golden", "(../shared/bench absent)", "-", "-", ""]]
      : [
        ["curate-golden", "akm search composite", f(b.curateGoldenSearch?.composite), f(q.curateGoldenSearch.composite), `≥ 0.95${mark(q.curateGoldenSearch.composite, q.targets.composite)}`],
        ["curate-golden", "akm curate composite", f(b.curateGoldenCurate?.composite), f(q.curateGoldenCurate.composite), `≥ 0.95${mark(q.curateGoldenCurate.composite, q.targets.composite)}`],
        ["ranking-baseline", "expectations passed", b.rankingBaseline === undefined ? "-" : `${b.rankingBaseline.passed}/${b.rankingBaseline.total}`, `${q.rankingBaseline.passed}/${q.rankingBaseline.total}`, q.rankingBaseline.passed === q.rankingBaseline.total ? "all ok" : "all MISSED"]
      ]),
    ...(nl === undefined
      ? []
      : [
        ["natural-language", `nDCG@10 (${nl.queries} queries)`, f(b.naturalLanguage?.ndcg), f(nl.ndcg), `≥ 0.92${mark(nl.ndcg, q.targets.naturalNdcg)}`],
        ["natural-language", "Recall@10", f(b.naturalLanguage?.recall), f(nl.recall), `≥ 0.97${mark(nl.recall, q.targets.naturalRecall)}`],
        ["natural-language", "queries with a decoy above a relevant item", String(b.naturalLanguage?.decoyAbove ?? "-"), String(nl.decoyAbove), ""],
        ["natural-language", "… of them a superseded/deprecated/stale item", String(b.naturalLanguage?.supersededAbove ?? "-"), String(nl.supersededAbove ?? "-"), ""],
        ...halfRows("tuning half", nl.tuning, b.naturalLanguage?.tuning, undefined),
        ...halfRows("held-out half", nl.heldOut, b.naturalLanguage?.heldOut, q.targets)
      ])
  ]
}
