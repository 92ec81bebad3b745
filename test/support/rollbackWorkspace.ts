import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { EvidenceInput } from "../../src/domain/Evidence.js"
import { ImproveComposed } from "../../src/layers/improve/ImproveLive.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import type { GenerationRequest, Generator } from "../../src/services/Generator.js"
import { mine } from "../programs/writeFixtures.js"
import { evidenceMemory, scriptedGenerator, type Reply } from "./improveLayers.js"

/**
 * The improve workspace shared by the improve and proposal-refresh tests: an
 * akm bundle "mine" holding a deploy-rollback note that people searched for
 * with other words, and a few unrelated notes, indexed.
 */

export const ROLLBACK_FILE = "knowledge/deploy-rollback.md"
export const ROLLBACK_REF = "mine//knowledge/deploy-rollback"

export const ROLLBACK = [
  "---",
  "description: Roll back a failed release of the web app",
  "tags: [release, rollback]",
  "owner: platform-team",
  "---",
  "# Deploy rollback",
  "",
  "Roll back when the new release fails its checks.",
  "",
  "## Restore the previous build",
  "",
  "Run the release tool with the previous build id; it swaps the symlink and restarts the workers.",
  "",
  "## Verify health after rollback",
  "",
  "Watch the error rate dashboard for ten minutes.",
  ""
].join("\n")

export const OTHER_NOTES: Record<string, string> = {
  "knowledge/database-backups.md": "---\ndescription: Nightly database backups and how to restore one\n---\n# Database backups\n\nBackups run at 02:00 to the object store.\n",
  "knowledge/oncall-rotation.md": "---\ndescription: Who is on call and how to swap shifts\n---\n# Oncall rotation\n\nSwap shifts in the pager tool.\n",
  "knowledge/feature-flags.md": "---\ndescription: Turning features on and off without a release\n---\n# Feature flags\n\nFlags live in the flag service.\n",
  "knowledge/log-search.md": "---\ndescription: Searching application logs by request id\n---\n# Log search\n\nUse the log explorer with the request id.\n"
}

/** What the scripted model does to the rollback note: adds the words people searched with. */
export const improved = (text: string) =>
  text.replace("tags: [release, rollback]", "tags: [release, rollback, undo, revert]")
    .replace("Roll back when the new release fails its checks.", "Roll back (undo a bad deploy) when the new release fails its checks.")

export const FEEDBACK: EvidenceInput = { kind: "negative-feedback", source: "feedback", ref: ROLLBACK_REF, note: "searched how to undo a bad deploy and did not find this", query: "undo bad deploy" }

/** The bundle "mine" with the rollback note, OTHER_NOTES and `extra`, indexed; yields its root. */
export const rollbackWorkspace = (extra: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const root = yield* mine
    for (const [file, text] of Object.entries({ [ROLLBACK_FILE]: ROLLBACK, ...OTHER_NOTES, ...extra })) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
      fs.writeFileSync(path.join(root, file), text)
    }
    yield* indexBundles({})
    return root
  })

/** The composed Improve layers (over AkmTest) with `evidence` in memory and the given Generator layer. */
export const improveOn = (evidence: ReadonlyArray<EvidenceInput>, generator: Layer.Layer<Generator>) =>
  ImproveComposed.pipe(Layer.provide(Layer.merge(evidenceMemory(evidence), generator)), Layer.provideMerge(AkmTest))

/** improveOn with a scripted generator (`call` counts from 1). */
export const withImprove = (evidence: ReadonlyArray<EvidenceInput>, reply: (r: GenerationRequest, call: number) => Reply) => {
  let call = 0
  const generator = scriptedGenerator((r) => reply(r, ++call))
  return { script: generator.script, layer: improveOn(evidence, generator.layer) }
}
