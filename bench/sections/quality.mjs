// The quality section (spec 10 §1): curate-golden composite for search and
// curate, the ranking-baseline expectations (both from ../shared/bench, when
// present) and the project's own natural-language set, run in-process.
import { runStep } from "./driver.mjs"

export const QUALITY_TARGETS = { composite: 0.95, naturalNdcg: 0.92, naturalRecall: 0.97, heldOutNdcg: 0.95 }

export const qualitySection = async ({ onProgress }) => {
  onProgress("quality")
  return { ...(await runStep("quality", {})), targets: QUALITY_TARGETS }
}

const f = (x) => (x === undefined ? "-" : x.toFixed(4))
const mark = (value, target, higher = true) => (value === undefined ? "" : (higher ? value >= target : value <= target) ? " ok" : " MISSED")

export const qualityRows = (q) => [
  ["fixture", "measure", "value", "target"],
  ...(q.curateGoldenSearch === undefined
    ? [["curate-golden", "(../shared/bench absent)", "-", ""]]
    : [
      ["curate-golden", "akm search composite", f(q.curateGoldenSearch.composite), `≥ 0.95${mark(q.curateGoldenSearch.composite, q.targets.composite)}`],
      ["curate-golden", "akm curate composite", f(q.curateGoldenCurate.composite), `≥ 0.95${mark(q.curateGoldenCurate.composite, q.targets.composite)}`],
      ["ranking-baseline", "expectations passed", `${q.rankingBaseline.passed}/${q.rankingBaseline.total}`, q.rankingBaseline.passed === q.rankingBaseline.total ? "all ok" : "all MISSED"]
    ]),
  ...(q.naturalLanguage === undefined
    ? []
    : [
      ["natural-language", `nDCG@10 (${q.naturalLanguage.queries} queries)`, f(q.naturalLanguage.ndcg), `≥ 0.92${mark(q.naturalLanguage.ndcg, q.targets.naturalNdcg)}`],
      ["natural-language", "Recall@10", f(q.naturalLanguage.recall), `≥ 0.97${mark(q.naturalLanguage.recall, q.targets.naturalRecall)}`],
      ["natural-language", "queries with a decoy above a relevant item", String(q.naturalLanguage.decoyAbove), ""],
      ["natural-language", "… of them a superseded/deprecated/stale item", String(q.naturalLanguage.supersededAbove ?? "-"), ""],
      ...halfRows("tuning half", q.naturalLanguage.tuning, undefined),
      ...halfRows("held-out half", q.naturalLanguage.heldOut, q.targets)
    ])
]

/** One half of the frozen split (judgments.json `split`): the held-out half carries the targets of issue 25. */
const halfRows = (label, half, targets) =>
  half === undefined
    ? []
    : [
      [`natural-language ${label}`, `nDCG@10 (${half.queries} queries)`, f(half.ndcg), targets === undefined ? "" : `≥ 0.95${mark(half.ndcg, targets.heldOutNdcg)}`],
      [`natural-language ${label}`, "Recall@10", f(half.recall), ""],
      [`natural-language ${label}`, "queries with a decoy / superseded item above a relevant one", `${half.decoyAbove} / ${half.supersededAbove}`, targets === undefined ? "" : `0${mark(half.decoyAbove, 0, false)}`]
    ]
