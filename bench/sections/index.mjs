// The corpus, index and memory sections (spec 10 §1): for each corpus size, a
// fresh workspace with the generated corpus as one akm bundle; a full build
// from an empty index.db, a no-op reindex and a reindex after 1% of the files
// changed, all in-process (bench/driver.ts), plus the build's peak RSS.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runStep } from "./driver.mjs"

/** Targets of spec 10 §2, at 5,000 items unless said. */
export const INDEX_TARGETS = { fullMsAt5000: 2000, noopMsAt5000: 300, peakRssMbAt20000: 300, fullMsAt50000: 30_000 }

/**
 * Runs setup + build for each size. Keeps the workspace of `keepSize` (for the
 * search section) and returns its root; the caller removes it.
 */
export const indexSection = async ({ sizes, keepSize, onProgress }) => {
  const runs = []
  let kept
  for (const size of sizes) {
    const root = mkdtempSync(join(tmpdir(), `akm-bench-index-${size}-`))
    try {
      onProgress(`index: generating ${size} items`)
      const corpus = await runStep("setup", { root, size })
      onProgress(`index: building ${size} items`)
      const build = await runStep("build", { root })
      runs.push({ size, corpus, ...build })
    } finally {
      if (size === keepSize) kept = root
      else rmSync(root, { recursive: true, force: true })
    }
  }
  return { section: { runs, targets: INDEX_TARGETS }, keptRoot: kept }
}

const mark = (value, target) => (target === undefined ? "" : value <= target ? " ok" : " MISSED")

/** Table rows for the terminal. */
export const indexRows = (section) => [
  ["items", "full ms", "items/s", "scan ms", "peak RSS MB", "no-op ms", "1% changed ms"],
  ...section.runs.map((r) => [
    String(r.items),
    `${r.full.ms.toFixed(0)}${mark(r.full.ms, r.size === 5000 ? section.targets.fullMsAt5000 : r.size === 50000 ? section.targets.fullMsAt50000 : undefined)}`,
    String(r.full.itemsPerSecond),
    r.full.scanMs.toFixed(0),
    `${r.full.peakRssMb.toFixed(0)}${mark(r.full.peakRssMb, r.size === 20000 ? section.targets.peakRssMbAt20000 : undefined)}`,
    `${r.noop.ms.toFixed(0)}${mark(r.noop.ms, r.size === 5000 ? section.targets.noopMsAt5000 : undefined)}`,
    `${r.changed.ms.toFixed(0)} (${r.changed.files} files)`
  ])
]
