// The start-up section: wall time of akm commands an agent runs, next to
// `node -e 0` measured in the same rounds (spec 10 §1-§2). Targets are ratios
// to that reference; docs/decisions/0002-start-up.md explains the numbers.
import { createRequire } from "node:module"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { round2, summarize, timeInterleaved } from "./measure.mjs"
import { makeBenchWorkspace } from "./workspace.mjs"

const bin = fileURLToPath(new URL("../bin/akm.js", import.meta.url))
const node = process.execPath

/**
 * What is timed; `target` is the bound of spec 10 §2 on the median ratio,
 * where there is one. Every read command an agent runs is here (issue 28):
 * search with and without `--`, show, curate with its items' token counts
 * cached (warm) and with none cached (cold: the tokenizer loads), info,
 * bundle list and health.
 */
const commands = [
  { name: "akm --version", args: ["--version"], target: 1.8 },
  { name: "akm --help", args: ["--help"] },
  { name: "akm info", args: ["info"], target: 2.0 },
  { name: "akm bundle list", args: ["bundle", "list"], target: 2.0 },
  { name: "akm health", args: ["health"], target: 2.0, okCodes: [0, 4] },
  // The search section times the same command over 5,000 items; this one is the start-up of a search on a tiny index.
  { name: "akm search", args: ["search", "set up", "--format", "json"], target: 2.0 },
  { name: "akm search -- q", args: ["search", "--format", "json", "--", "set up"], target: 2.0 },
  { name: "akm show", args: ["show", "notes//guides/setup", "--format", "json"], target: 2.0 },
  { name: "akm curate (warm)", args: ["curate", "set up", "--format", "json"], target: 2.0 },
  { name: "akm curate (cold)", args: ["curate", "set up", "--format", "json"], cold: true }
]

const require = createRequire(import.meta.url)

/** Forgets every cached token count, so the next curate counts (and loads the tokenizer) again. */
const clearTokenCounts = (indexDb) => () => {
  const Database = require("better-sqlite3")
  const db = new Database(indexDb)
  try {
    db.prepare("DELETE FROM token_counts").run()
  } finally {
    db.close()
  }
}

export const startupSection = ({ runs, onProgress }) => {
  const workspace = makeBenchWorkspace()
  try {
    const notes = workspace.folder("notes", {
      "index.md": "---\ntitle: Notes\n---\n# Notes\n\nA small bundle for the start-up benchmark.\n",
      "guides/setup.md": "---\ntitle: Setup\ndescription: How to set things up\n---\n# Setup\n\nRun the installer, then check the version.\n"
    })
    workspace.setup(node, [bin, "bundle", "add", notes, "--name", "notes"])
    workspace.setup(node, [bin, "init"])

    const reference = { name: "node -e 0", file: node, args: ["-e", "0"] }
    const cold = clearTokenCounts(join(workspace.env.AKM_CACHE_DIR, "index.db"))
    const timed = [reference, ...commands.map((c) => ({ name: c.name, file: node, args: [bin, ...c.args], okCodes: c.okCodes, before: c.cold === true ? cold : undefined }))]
    const loadBefore = loadavg()
    const [referenceSamples, ...samples] = timeInterleaved(timed, {
      runs,
      cwd: workspace.root,
      env: workspace.env,
      onRound: (round) => onProgress(`startup: round ${round}/${runs}`)
    })
    const ref = summarize(referenceSamples)
    const loadAfter = loadavg()
    return {
      runs,
      // 1-, 5- and 15-minute load averages when the rounds began and ended: the figures mean little under load.
      loadavg: { before: loadBefore.map(round2), after: loadAfter.map(round2) },
      reference: { name: reference.name, ...ref },
      commands: commands.map((command, i) => {
        const stats = summarize(samples[i])
        return {
          name: command.name,
          args: command.args,
          ...stats,
          ratio: round2(stats.medianMs / ref.medianMs),
          p95Ratio: round2(stats.p95Ms / ref.p95Ms),
          ...(command.target === undefined ? {} : { target: command.target }),
          ...(command.proxyFor === undefined ? {} : { proxyFor: command.proxyFor })
        }
      })
    }
  } finally {
    workspace.remove()
  }
}

/** The section as table rows for the terminal. */
export const startupRows = (section) => [
  ["command", "median ms", "p95 ms", "ratio", "p95 ratio", "target"],
  [section.reference.name, section.reference.medianMs.toFixed(1), section.reference.p95Ms.toFixed(1), "1.00", "1.00", ""],
  ...section.commands.map((c) => [
    c.name,
    c.medianMs.toFixed(1),
    c.p95Ms.toFixed(1),
    c.ratio.toFixed(2),
    c.p95Ratio.toFixed(2),
    c.target === undefined ? "" : `≤ ${c.target.toFixed(1)}${c.ratio <= c.target ? " ok" : " MISSED"}${c.proxyFor === undefined ? "" : ` (for ${c.proxyFor})`}`
  ])
]
