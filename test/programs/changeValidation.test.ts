import { describe, expect, it } from "@effect/vitest"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { BundleAdapter, ValidateContext } from "../../src/domain/Adapter.js"
import type { Diagnostic } from "../../src/domain/Diagnostic.js"
import type { FileChange } from "../../src/domain/FileChange.js"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { AdaptersBuiltIn } from "../../src/layers/adapters/registry.js"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { ProgressSilent } from "../../src/layers/fs/ProgressTerminal.js"
import { CrashPointsNone } from "../../src/layers/fs/transaction/CrashPoints.js"
import { TransactionEngineLive } from "../../src/layers/fs/TransactionEngine.js"
import { IndexStoreMiniSearch } from "../../src/layers/memory/IndexStoreMiniSearch.js"
import { ItemProjectorInProcess } from "../../src/layers/projector/ItemProjectorWorkers.js"
import { LogStoreMemory } from "../../src/layers/sqlite/LogStoreSqlite.js"
import { ProposalStoreSqlite } from "../../src/layers/sqlite/ProposalStoreSqlite.js"
import { RedactorSqlite } from "../../src/layers/sqlite/RedactorSqlite.js"
import { StateDbMemory } from "../../src/layers/sqlite/StateDb.js"
import { StateStoreSqlite } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { UsageLogSqlite } from "../../src/layers/sqlite/UsageLogSqlite.js"
import { AkmTest, WorkspaceConfigTemp } from "../../src/layers/test/AkmTest.js"
import { TokenizerGpt } from "../../src/layers/tokenizer/TokenizerGpt.js"
import { ChangeValidatorIndexed, makeChangeValidator } from "../../src/layers/validation/ChangeValidatorIndexed.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { evaluateChanges } from "../../src/programs/proposals/evaluate.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { remember } from "../../src/programs/remember.js"
import { resolveBundle } from "../../src/programs/scan.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { ChangeValidator } from "../../src/services/ChangeValidator.js"
import { caller, folder, mine, adapterFixtures, markdownFiles } from "./writeFixtures.js"

// Issue 13 item 3 (spec 05 §2 step 5, R-IDX-2): accepting a change validates what it touches — the changed
// items, what links to or from them and the adapter's whole-bundle rules over what the index keeps of the rest —
// and finds exactly what a full validation finds.

/** Every file a context read, by bundle-relative path: what validation and indexing cost. */
const reads: Array<string> = []

/** BundleFiles whose contexts count readText calls. */
const countingFiles = (): BundleFiles["Type"] => {
  const real = makeBundleFiles()
  return {
    ...real,
    context: (bundle, files, overlay) => {
      const ctx = real.context(bundle, files, overlay)
      const counted: ValidateContext = Object.create(ctx) as ValidateContext
      Object.defineProperty(counted, "readText", { value: (p: string) => Effect.zipRight(Effect.sync(() => void reads.push(p)), ctx.readText(p)) })
      return counted
    }
  }
}

/** AkmTest with the counting BundleFiles. */
const Counted = Layer.mergeAll(StateStoreSqlite, UsageLogSqlite, RedactorSqlite, ProposalStoreSqlite, TokenizerGpt, LogStoreMemory, TransactionEngineLive, ItemProjectorInProcess).pipe(
  Layer.provideMerge(ChangeValidatorIndexed),
  Layer.provideMerge(IndexStoreMiniSearch),
  Layer.provideMerge(ProgressSilent),
  Layer.provideMerge(AdaptersBuiltIn),
  Layer.provideMerge(CrashPointsNone),
  Layer.provideMerge(Layer.sync(BundleFiles, countingFiles)),
  Layer.provideMerge(StateDbMemory),
  Layer.provideMerge(WorkspaceConfigTemp),
  Layer.provideMerge(NodeContext.layer)
)

const MEMORIES = 400

/** A memory whose body links another memory (a markdown link and an xref), so items depend on each other. */
const memory = (i: number) =>
  `---\ndescription: Memory ${i} about the deploy runner\nxrefs: [memories/m${(i + 1) % MEMORIES}]\n---\n# Memory ${i}\n\nSee [the next one](m${(i + 1) % MEMORIES}.md). Skills: [s](../skills/s${i % 20}/SKILL.md)\n`

const skill = (i: number) => `---\nname: s${i}\ndescription: Skill ${i} does a thing\n---\n# Skill ${i}\n\nRun \`scripts/run.sh\`.\n`

/** An indexed akm bundle with MEMORIES memories and 20 skills; yields its root. */
const largeBundle = Effect.gen(function* () {
  const root = yield* mine
  fs.mkdirSync(path.join(root, "memories"), { recursive: true })
  for (let i = 0; i < MEMORIES; i++) fs.writeFileSync(path.join(root, "memories", `m${i}.md`), memory(i))
  for (let i = 0; i < 20; i++) {
    fs.mkdirSync(path.join(root, "skills", `s${i}`, "scripts"), { recursive: true })
    fs.writeFileSync(path.join(root, "skills", `s${i}`, "SKILL.md"), skill(i))
    fs.writeFileSync(path.join(root, "skills", `s${i}`, "scripts", "run.sh"), "#!/bin/sh\n# @description runs\necho hi\n")
  }
  yield* indexBundles({})
  return root
})

const bytesOf = (root: string, file: string) => fs.readFileSync(path.join(root, file))

describe("a write to a large bundle reads only what it touches", () => {
  it.effect("remember in an indexed 400-memory bundle reads the new memory, not the others (index refresh included)", () =>
    Effect.gen(function* () {
      yield* largeBundle
      reads.length = 0
      const made = yield* remember({ text: "The staging DB needs an allow-listed runner IP.", bundle: "mine" })
      expect(made.status).toBe("accepted")
      // Validation projects the new memory (evaluation, engine); the refresh reads it once more to index it.
      expect(reads.filter((p) => p.startsWith("memories/m"))).toEqual([])
      expect(reads.length).toBeLessThanOrEqual(6)
    }).pipe(Effect.provide(Counted)))

  it.effect("accepting a one-file edit re-reads the edited item and the items that link to it, nothing else", () =>
    Effect.gen(function* () {
      const root = yield* largeBundle
      const file = "memories/m7.md"
      const changes: ReadonlyArray<FileChange> = [{ bundle: "mine", path: file, beforeHash: sha256Hex(bytesOf(root, file)), after: memory(7).replace("Memory 7 about", "Memory seven about") }]
      const { proposal } = yield* propose({ title: "edit", recipe: "manual", changeClass: "semantic", changes })
      reads.length = 0
      const accepted = yield* proposalAccept(proposal.id)
      expect(accepted.status).toBe("accepted")
      // m6 links to m7 (its markdown link probes m7.md), so only m6 may be re-read besides m7 itself.
      expect([...new Set(reads)].sort()).toEqual(expect.arrayContaining([file]))
      expect(new Set(reads.filter((p) => p !== file && p !== "memories/m6.md")).size).toBe(0)
    }).pipe(Effect.provide(Counted)))

  it.effect("the validator projects only the touched item of a one-file change (counted through the adapter)", () =>
    Effect.gen(function* () {
      yield* largeBundle
      const { info, adapter } = yield* resolveBundle("mine")
      let projected = 0
      const counting: BundleAdapter = { ...adapter, project: (item, ctx) => Effect.zipRight(Effect.sync(() => void projected++), adapter.project(item, ctx)) }
      const found = yield* (yield* ChangeValidator).validate(info, counting, [{ bundle: "mine", path: "memories/new-one.md", beforeHash: null, after: "---\ndescription: a new one\n---\n# New\n\nFine.\n" }])
      expect(found).toMatchObject({ incremental: true, projected: 1, introduced: [], refs: ["mine//memories/new-one"] })
      expect(projected).toBe(1)
    }).pipe(Effect.provide(Counted)))
})

const codes = (diagnostics: ReadonlyArray<Diagnostic>) => diagnostics.map((d) => `${d.code} ${d.path}`).sort()

describe("whole-bundle rules still judge a change", () => {
  const tree = {
    "memories/a.md": "---\ndescription: A\n---\n# A\n\nFirst.\n",
    "memories/b.md": "---\ndescription: B\nxrefs: [memories/a]\n---\n# B\n\nSee [a](a.md).\n",
    "tasks/nightly.yml": "schedule: \"0 3 * * *\"\nprompt: run the nightly check\n"
  }

  it.effect("breaking changes: a delete breaks links into the item, a new item links nowhere, a second file claims an id", () =>
    Effect.gen(function* () {
      const root = folder(tree)
      yield* bundleAdd({ source: root, name: "w", adapter: "akm", writable: true, ...caller })
      const hashOf = (file: string) => sha256Hex(bytesOf(root, file))
      // Into the changed item: b's xref and link to a break when a goes.
      const deleted = yield* evaluateChanges([{ bundle: "w", path: "memories/a.md", beforeHash: hashOf("memories/a.md"), delete: true }])
      expect(codes(deleted.evaluation.diagnostics)).toEqual(["broken-ref memories/b.md", "dangling-link memories/b.md"])
      // From the changed item: an xref and a link to nothing.
      const dangling = yield* evaluateChanges([{ bundle: "w", path: "memories/c.md", beforeHash: null, after: "---\ndescription: C\nxrefs: [memories/zzz]\n---\n# C\n\nSee [gone](gone.md).\n" }])
      expect(codes(dangling.evaluation.diagnostics)).toEqual(["broken-ref memories/c.md", "dangling-link memories/c.md"])
      // Two files, one concept id.
      const twin = yield* evaluateChanges([{ bundle: "w", path: "tasks/nightly.yaml", beforeHash: null, after: tree["tasks/nightly.yml"] }])
      expect(codes(twin.evaluation.diagnostics)).toContain("duplicate-concept-id tasks/nightly.yaml")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("good changes stay silent: a new item linking to existing ones, an edit that keeps its links", () =>
    Effect.gen(function* () {
      const root = folder(tree)
      yield* bundleAdd({ source: root, name: "w", adapter: "akm", writable: true, ...caller })
      const added = yield* evaluateChanges([{ bundle: "w", path: "memories/c.md", beforeHash: null, after: "---\ndescription: C\nxrefs: [memories/b]\n---\n# C\n\nSee [a](a.md).\n" }])
      expect(added.evaluation).toMatchObject({ verdict: "pass", diagnostics: [] })
      const edited = yield* evaluateChanges([{ bundle: "w", path: "memories/a.md", beforeHash: sha256Hex(bytesOf(root, "memories/a.md")), after: "---\ndescription: A, edited\n---\n# A\n\nFirst, edited.\n" }])
      expect(edited.evaluation).toMatchObject({ verdict: "pass", diagnostics: [] })
    }).pipe(Effect.provide(AkmTest)))
})

const fixtures = adapterFixtures

describe("incremental validation equals a full validation on every adapter's fixture", () => {
  for (const fixture of fs.readdirSync(fixtures).sort()) {
    it.effect(fixture, () =>
      Effect.gen(function* () {
        const root = folder()
        fs.cpSync(path.join(fixtures, fixture), root, { recursive: true, preserveTimestamps: true })
        yield* bundleAdd({ source: root, name: "b", ...caller })
        const { info, adapter } = yield* resolveBundle("b")
        const incremental = yield* ChangeValidator
        const full = makeChangeValidator(yield* BundleFiles, undefined)
        const markdown = markdownFiles(root)
        if (markdown.length === 0) return
        const first = markdown[0]!
        const last = markdown[markdown.length - 1]!
        const hashOf = (file: string) => sha256Hex(bytesOf(root, file))
        const sets: ReadonlyArray<ReadonlyArray<FileChange>> = [
          [{ bundle: "b", path: first, beforeHash: hashOf(first), after: `${fs.readFileSync(path.join(root, first), "utf8")}\nSee [nowhere](./nowhere.md) and [[missing-page]].\n` }],
          [{ bundle: "b", path: path.posix.join(path.posix.dirname(first), "added-page.md"), beforeHash: null, after: `# Added\n\nSee [first](./${path.posix.basename(first)}).\n` }],
          [{ bundle: "b", path: last, beforeHash: hashOf(last), delete: true }],
          [{ bundle: "b", path: first, beforeHash: hashOf(first), delete: true }, { bundle: "b", path: path.posix.join(path.posix.dirname(first), "renamed.md"), beforeHash: null, after: fs.readFileSync(path.join(root, first), "utf8") }]
        ]
        for (const changes of sets) {
          const quick = yield* incremental.validate(info, adapter, changes)
          const slow = yield* full.validate(info, adapter, changes)
          // A change to a coupling file (a wiki's schema.md) validates in full, as it reindexes in full.
          expect(quick.incremental).toBe(!changes.some((c) => (adapter.couplingFiles ?? []).includes(c.path)))
          expect(slow.incremental).toBe(false)
          expect(quick.introduced).toEqual(slow.introduced)
          expect(quick.refs).toEqual(slow.refs)
          expect(quick.projected).toBeLessThanOrEqual(slow.projected)
        }
      }).pipe(Effect.provide(AkmTest)))
  }
})
