import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { Diagnostic } from "../../src/domain/Diagnostic.js"
import type { FileChange } from "../../src/domain/FileChange.js"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { makeChangeValidator } from "../../src/layers/validation/ChangeValidatorIndexed.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { resolveBundle } from "../../src/programs/scan.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { ChangeValidator } from "../../src/services/ChangeValidator.js"
import { caller, folder } from "./writeFixtures.js"

// Issue 13 item 3 (decision 0032): a write to an indexed bundle validates incrementally — the touched items
// projected, the untouched ones taken from the index — and still catches what the whole-bundle rules catch:
// a broken link the edit introduces, a concept id it claims twice with an untouched file, a link from an
// untouched file into a file it deletes, a section an untouched item's ref names that the edit removes.
// Each answer must equal a full validation's and come from the incremental path.

const ITEMS = 40

/** An indexed akm bundle: a chain of memories (each links and xrefs the next), a sectioned guide, a task. */
const indexedBundleWith = (extra: Record<string, string>) => Effect.gen(function* () {
  const files: Record<string, string> = {
    ...extra,
    "knowledge/guide.md": "---\ndescription: The guide\n---\n# Guide\n\n## Rollback\n\nUndo it.\n",
    "memories/reader.md": "---\ndescription: Reads the guide\nxrefs: [knowledge/guide#rollback]\n---\n# Reader\n\nSee the guide.\n",
    "tasks/nightly.yml": "schedule: \"0 3 * * *\"\nprompt: run the nightly check\n"
  }
  for (let i = 0; i < ITEMS; i++) {
    files[`memories/m${i}.md`] = `---\ndescription: Memory ${i}\nxrefs: [memories/m${(i + 1) % ITEMS}]\n---\n# Memory ${i}\n\nSee [the next one](m${(i + 1) % ITEMS}.md).\n`
  }
  const root = folder(files)
  yield* bundleAdd({ source: root, name: "w", adapter: "akm", writable: true, ...caller })
  yield* indexBundles({})
  return root
})

const indexedBundle = indexedBundleWith({})

const codes = (diagnostics: ReadonlyArray<Diagnostic>) => diagnostics.map((d) => `${d.code} ${d.path}`).sort()

/** The incremental answer (checked to be incremental and equal to a full validation's) for a change set. */
const validateBoth = (changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const { info, adapter } = yield* resolveBundle("w")
    const quick = yield* (yield* ChangeValidator).validate(info, adapter, changes)
    const slow = yield* makeChangeValidator(yield* BundleFiles, undefined).validate(info, adapter, changes)
    expect(quick.incremental).toBe(true)
    expect(slow.incremental).toBe(false)
    expect(quick.introduced).toEqual(slow.introduced)
    expect(quick.refs).toEqual(slow.refs)
    // Incremental: far fewer items projected than the bundle holds.
    expect(quick.projected).toBeLessThan(10)
    return quick
  })

const text = (root: string, file: string) => fs.readFileSync(path.join(root, file), "utf8")
const hashOf = (root: string, file: string) => sha256Hex(fs.readFileSync(path.join(root, file)))

describe("incremental write validation still runs the whole-bundle rules", () => {
  it.effect("an edit that introduces a broken link and ref into its own file", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const file = "memories/m7.md"
      const found = yield* validateBoth([{ bundle: "w", path: file, beforeHash: hashOf(root, file), after: text(root, file).replace("memories/m8]", "memories/m8, memories/zzz]").replace("(m8.md)", "(gone.md)") }])
      expect(codes(found.introduced)).toEqual(["broken-ref memories/m7.md", "dangling-link memories/m7.md"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an edit that removes a section an untouched item's ref names breaks that untouched item", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const file = "knowledge/guide.md"
      const found = yield* validateBoth([{ bundle: "w", path: file, beforeHash: hashOf(root, file), after: text(root, file).replace("## Rollback", "## Roll forward") }])
      expect(codes(found.introduced)).toEqual(["broken-ref memories/reader.md"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a new file that claims an untouched file's concept id", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const found = yield* validateBoth([{ bundle: "w", path: "tasks/nightly.yaml", beforeHash: null, after: text(root, "tasks/nightly.yml") }])
      expect(codes(found.introduced)).toContain("duplicate-concept-id tasks/nightly.yaml")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a delete that breaks an untouched file's link and ref into it", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const found = yield* validateBoth([{ bundle: "w", path: "memories/m7.md", beforeHash: hashOf(root, "memories/m7.md"), delete: true }])
      expect(codes(found.introduced)).toEqual(["broken-ref memories/m6.md", "dangling-link memories/m6.md"])
    }).pipe(Effect.provide(AkmTest)))

  // The bundle rules run only for the changed items and the items naming them (BundleAdapter.lintChanged, decision 0038):
  // a ref in short form (`memory/…` for `memories/…`) from an untouched item still counts as naming the edited item.
  it.effect("an edit that renames a heading a short-form ref of an untouched item names", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundleWith({ "knowledge/short.md": "---\ndescription: Short refs\nxrefs: [memory/m5#memory-5, memories/m6]\n---\n# Short\n\nSee five.\n" })
      const file = "memories/m5.md"
      const found = yield* validateBoth([{ bundle: "w", path: file, beforeHash: hashOf(root, file), after: text(root, file).replace("# Memory 5", "# Memory five") }])
      expect(codes(found.introduced)).toEqual(["broken-ref knowledge/short.md"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a delete breaks every item naming it, and an edit elsewhere at the same time is judged too", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundleWith({ "knowledge/short.md": "---\ndescription: Short refs\nxrefs: [memory/m5, w//memories/m5]\n---\n# Short\n\nSee five.\n" })
      const found = yield* validateBoth([
        { bundle: "w", path: "memories/m5.md", beforeHash: hashOf(root, "memories/m5.md"), delete: true },
        { bundle: "w", path: "memories/m20.md", beforeHash: hashOf(root, "memories/m20.md"), after: text(root, "memories/m20.md").replace("memories/m21]", "memories/m21, memories/nowhere]") }
      ])
      expect(codes(found.introduced)).toEqual(["broken-ref knowledge/short.md", "broken-ref knowledge/short.md", "broken-ref memories/m20.md", "broken-ref memories/m4.md", "dangling-link memories/m4.md"])
    }).pipe(Effect.provide(AkmTest)))

  // Creates and deletes pair the two trees' items by concept id in one pass (decision 0052): an item only one tree
  // plans, or planned differently in each, is judged in both, and the rest cancel as before.
  it.effect("a new file that an untouched item's broken link and ref named makes them valid; an edit beside it keeps its old broken link", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundleWith({
        "knowledge/waiting.md": "---\ndescription: Waits\nxrefs: [memories/later]\n---\n# Waiting\n\nSee [later](../memories/later.md).\n",
        "knowledge/stale.md": "---\ndescription: Stale\n---\n# Stale\n\nSee [gone](gone.md).\n"
      })
      const found = yield* validateBoth([
        { bundle: "w", path: "memories/later.md", beforeHash: null, after: "---\ndescription: Later\n---\n# Later\n\nHere now.\n" },
        { bundle: "w", path: "knowledge/stale.md", beforeHash: hashOf(root, "knowledge/stale.md"), after: text(root, "knowledge/stale.md").replace("# Stale", "# Still stale") }
      ])
      expect(found.introduced).toEqual([])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a concept id moved to a new file (delete one, create its twin) with a broken link, and a duplicate created beside it", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const task = text(root, "tasks/nightly.yml")
      const found = yield* validateBoth([
        { bundle: "w", path: "tasks/nightly.yml", beforeHash: hashOf(root, "tasks/nightly.yml"), delete: true },
        { bundle: "w", path: "tasks/nightly.yaml", beforeHash: null, after: task },
        { bundle: "w", path: "memories/m9.markdown", beforeHash: null, after: text(root, "memories/m9.md").replace("(m10.md)", "(m99.md)") },
        { bundle: "w", path: "memories/fresh.md", beforeHash: null, after: "---\ndescription: Fresh\nxrefs: [memories/m3]\n---\n# Fresh\n\nSee [three](m3.md) and [none](none.md).\n" }
      ])
      expect(codes(found.introduced)).toContain("dangling-link memories/fresh.md")
      expect(codes(found.introduced)).not.toContain("duplicate-concept-id tasks/nightly.yaml")
    }).pipe(Effect.provide(AkmTest)))

  // The bundle rules build no list of refs for an item that has none, and know every concept id only once a
  // subject has a ref to resolve (decision 0057): an item that gains its first refs is still judged in full.
  it.effect("an item without refs gains a supersededBy naming nothing and xrefs to an untouched and a missing item; a ref-less file is created", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundleWith({ "knowledge/plain.md": "---\ndescription: Plain\n---\n# Plain\n\nNo refs.\n" })
      const found = yield* validateBoth([
        { bundle: "w", path: "knowledge/plain.md", beforeHash: hashOf(root, "knowledge/plain.md"), after: "---\ndescription: Plain\nsupersededBy: knowledge/nowhere\nxrefs: [memories/m7, memories/m404]\n---\n# Plain\n\nNow refs.\n" },
        { bundle: "w", path: "knowledge/lone.md", beforeHash: null, after: "---\ndescription: Lone\n---\n# Lone\n\nNo refs either.\n" }
      ])
      expect(codes(found.introduced)).toEqual(["broken-ref knowledge/plain.md", "broken-ref knowledge/plain.md"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a clean edit introduces nothing", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const file = "memories/m7.md"
      const found = yield* validateBoth([{ bundle: "w", path: file, beforeHash: hashOf(root, file), after: text(root, file).replace("# Memory 7", "# Memory seven") }])
      expect(found.introduced).toEqual([])
    }).pipe(Effect.provide(AkmTest)))
})

describe("accept on the incremental path", () => {
  it.effect("an edit accepted on the incremental path lands, and the refreshed index equals a full reindex", () =>
    Effect.gen(function* () {
      const root = yield* indexedBundle
      const file = "memories/m3.md"
      const { proposal } = yield* propose({ title: "edit", recipe: "manual", changeClass: "semantic", changes: [{ bundle: "w", path: file, beforeHash: hashOf(root, file), after: text(root, file).replace("# Memory 3", "# Memory three") }] })
      const accepted = yield* proposalAccept(proposal.id)
      expect(accepted.status).toBe("accepted")
      expect(text(root, file)).toContain("# Memory three")
      const again = yield* indexBundles({})
      expect(again.bundles[0]?.status).toBe("unchanged")
    }).pipe(Effect.provide(AkmTest)))
})
