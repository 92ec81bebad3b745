// The improve section: builds bench/improve.ts with esbuild and runs it in a
// fresh node process (see bench/improve.ts for what it measures).
import { runBundledScript } from "./bundledScript.mjs"

export const improveSection = async ({ onProgress = () => {} } = {}) => {
  onProgress("improve: four runs over the seeded defects")
  return runBundledScript("improve")
}

export const improveRows = (section) => [
  ["improve: held-out precision / recall", `${section.heldOut.precision} / ${section.heldOut.recall}`, "1 / 1"],
  ["improve: bad candidates rejected (held-out)", `${section.heldOut.badRejected}/${section.heldOut.badRejected + section.heldOut.badAccepted}`, "all"],
  ["improve: trigger MRR lift", `${section.triggerLift.mrrBefore} → ${section.triggerLift.mrrAfter}`, "> 0"],
  ["improve: one run (ms) / second run model calls", `${section.run.wallMs} / ${section.run.secondRunModelCalls}`, "— / 0"]
]
