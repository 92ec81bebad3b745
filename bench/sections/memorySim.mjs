// The memory-sim section (issue 23 item 8): builds bench/memorySim.ts with esbuild and runs it in a
// fresh node process (see bench/memorySim.ts for what it simulates and audits).
import { runBundledScript } from "./bundledScript.mjs"

export const memorySimSection = async ({ onProgress = () => {} } = {}) => {
  onProgress("memory-sim: 10,000 memories over 20 simulated weeks")
  return runBundledScript("memorySim")
}

export const memorySimRows = (section) => [
  ["memory-sim: passes left above high water", String(section.passesLeftAboveHighWater), "0"],
  ["memory-sim: unique claims lost (of all)", `${section.audit.lost} (of ${section.audit.uniqueClaims})`, "0"],
  ["memory-sim: archive max bytes / bound", `${section.archive.maxBytes} / ${section.policy.archiveMaxBytes}`, "≤ bound"],
  ["memory-sim: tier max after a pass / high water", `${section.maxTierAfterPass} / ${section.policy.highWaterItems}`, "≤ high water"]
]
