import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "esbuild"
import { afterAll, beforeAll, expect } from "vitest"
import { ItemProjectorInProcess, ItemProjectorWorkers } from "../../src/layers/projector/ItemProjectorWorkers.js"
import { itemProjectorContract } from "../services/ItemProjector.contract.js"

// The real worker script is built from src/ the way scripts/build.mjs builds dist/cli/projector-worker.cjs.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "akm-projector-worker-"))
const script = path.join(dir, "projector-worker.cjs")
/** A worker that dies as it starts. */
const crashing = path.join(dir, "crashing.cjs")
/** A worker that hands back no chunk (as when a projection cannot be cloned). */
const refusing = path.join(dir, "refusing.cjs")

beforeAll(async () => {
  await build({
    entryPoints: [path.resolve(__dirname, "../../src/layers/projector/projectorWorker.ts")],
    outfile: script,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["better-sqlite3"],
    logLevel: "warning"
  })
  fs.writeFileSync(crashing, 'throw new Error("boom")\n')
  fs.writeFileSync(
    refusing,
    'const { parentPort } = require("node:worker_threads")\nparentPort.on("message", (m) => { if (m.type === "chunk") parentPort.postMessage({ type: "failed", job: m.job, seq: m.seq, message: "DataCloneError" }) })\n'
  )
}, 60_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

itemProjectorContract("in-process", () => ({ layer: ItemProjectorInProcess }))

itemProjectorContract("two worker threads", () => ({
  layer: ItemProjectorWorkers({ script, workers: 2, minPlans: 0 }),
  // The workers took part: the main thread projected only some of the items itself.
  check: ({ plans, mainThreadProjections }) => expect(mainThreadProjections).toBeLessThan(plans)
}))

itemProjectorContract("a worker that dies on start (falls back in-process)", () => ({ layer: ItemProjectorWorkers({ script: crashing, workers: 2, minPlans: 0 }) }))

itemProjectorContract("workers that hand back no chunk (each chunk projected again in-process)", () => ({ layer: ItemProjectorWorkers({ script: refusing, workers: 1, minPlans: 0 }) }))

itemProjectorContract("a job under the parallel threshold (in-process)", () => ({ layer: ItemProjectorWorkers({ script, workers: 2, minPlans: 100_000 }) }))
