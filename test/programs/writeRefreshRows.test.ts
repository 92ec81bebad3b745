import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { reusableItems } from "../../src/domain/ItemReuse.js"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { IndexStoreSqlite, makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { BundleFilesNode } from "../../src/layers/fs/BundleFilesNode.js"
import { akmTestWith } from "../../src/layers/test/AkmTest.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { proposalNew } from "../../src/programs/proposals/new.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { remember } from "../../src/programs/remember.js"
import { resolveBundle, scanStreamed } from "../../src/programs/scan.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { caller, folder, mine } from "./writeFixtures.js"

// Issue 13 item 3 (decision 0052, "Refresh after a write"): the index refresh that follows a one-file write
// reads and writes only what changed, and leaves index.db's rows exactly as a fresh full index of the same files.

/** The rows a full index decides, without row ids and the run's time stamp (documents by ref, links by the document's ref). */
const rows = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    const all = (text: string) => db.prepare(text).all()
    return {
      documents: all("SELECT * FROM documents ORDER BY ref").map((row) => ({ ...(row as Record<string, unknown>), id: undefined })),
      json: all("SELECT d.ref, j.doc, j.inputs FROM document_json j JOIN documents d ON d.id = j.id ORDER BY d.ref"),
      manifest: all("SELECT bundle, path, size, mtime_ms, hash FROM manifest ORDER BY bundle, path"),
      links: all("SELECT d.ref, l.target FROM links l JOIN documents d ON d.id = l.document_id ORDER BY d.ref, l.target"),
      bundles: all("SELECT name, items, adapter, adapter_version, writable, root, errors, warnings, infos, stale_reason FROM bundles ORDER BY name")
    }
  } finally {
    db.close()
  }
}

/** index.db's rows now, and those of a fresh full index of the same bundle into a second index.db. */
const compareWithFull = (label: string, options: { readonly manifest?: false } = {}) =>
  Effect.gen(function* () {
    const paths = (yield* WorkspaceConfig).paths
    const fresh = path.join(folder(), `fresh-${label}.db`)
    yield* Effect.scoped(Effect.gen(function* () {
      const store = yield* makeIndexStore(fresh, { leaseFile: path.join(path.dirname(fresh), "index.lock") })
      yield* indexBundles({ bundle: "mine", full: true }).pipe(Effect.provideService(IndexStore, store))
    }))
    const now = rows(paths.indexDb)
    const full = rows(fresh)
    expect(now.documents.length).toBeGreaterThan(20)
    const counts = now.bundles[0] as { errors: number | null; warnings: number | null; infos: number | null }
    expect((counts.errors ?? 0) + (counts.warnings ?? 0) + (counts.infos ?? 0)).toBeGreaterThan(0)
    // A file changed outside akm after the engine's relisting: the manifest keeps the stats the write saw (the next run rescans it).
    if (options.manifest === false) expect({ ...now, manifest: undefined }).toEqual({ ...full, manifest: undefined })
    else expect(now).toEqual(full)
  })

const NOTES = 24
const note = (i: number) =>
  `---\ntype: guide\ntitle: Note ${i}\ndescription: About topic ${i}\n---\n# Note ${i}\n\nNext: [n](n${String((i + 1) % NOTES).padStart(2, "0")}.md). ${i % 5 === 0 ? "Broken: [x](gone.md)." : ""}\n`

describe("the refresh after a one-file write (issue 13 item 3)", () => {
  it.scoped("after remember and after an accepted edit, index.db's rows equal a fresh full index", () =>
    Effect.gen(function* () {
      const root = yield* mine
      for (let i = 0; i < NOTES; i++) {
        fs.mkdirSync(path.join(root, "notes"), { recursive: true })
        fs.writeFileSync(path.join(root, "notes", `n${String(i).padStart(2, "0")}.md`), note(i))
      }
      yield* indexBundles({ bundle: "mine" })

      yield* remember({ text: "Deploys freeze on Fridays. See the notes first.", bundle: "mine" })
      yield* compareWithFull("remember")

      const draft = folder({ "draft.md": `${note(3)}\nEdited: [broken](nowhere.md) and [ok](n04.md).\n` })
      const edit = yield* proposalNew({ bundle: "mine", files: [`notes/n03.md=@${path.join(draft, "draft.md")}`], title: "Edit n03", ...caller })
      expect((yield* proposalAccept(edit.id!)).status).toBe("accepted")
      yield* compareWithFull("accept")

      // A created file by proposal (the listing changes) and a second remember into the same refreshed index.
      const created = folder({ "draft.md": "---\ntype: guide\ntitle: New\n---\n# New\n\nSee [n](notes/n01.md) and [gone](gone2.md).\n" })
      const create = yield* proposalNew({ bundle: "mine", files: [`new.md=@${path.join(created, "draft.md")}`], title: "Create new", ...caller })
      expect((yield* proposalAccept(create.id!)).status).toBe("accepted")
      yield* compareWithFull("create")
      yield* remember({ text: "Staging needs the VPN.", bundle: "mine" })
      yield* compareWithFull("remember2")
    }).pipe(Effect.provide(akmTestWith(IndexStoreSqlite))), 60_000)

  // Decision 0058: the bundle rules check refs without an Effect per ref (a fragment still asks the target's headings),
  // the persist session marks stored rows by position (a delete's vanished row is found), and a finding about a kept
  // item gets its ref by path only for the files findings name.
  const XREF_NOTES = 24
  const xrefNote = (i: number) =>
    `---\ndescription: Fact ${i}\nxrefs: [${i % 3 === 0 ? "knowledge/target#limits" : i % 3 === 1 ? "knowledge/missing" : `knowledge/f${String((i + 1) % XREF_NOTES).padStart(2, "0")}`}]\n---\n# Fact ${i}\n\nText ${i}.\n`
  const target = (limits: boolean) => `---\ndescription: The target\n---\n# Target\n\n${limits ? "## Limits\n\nTen a minute.\n" : "No limits now.\n"}`
  const hashOf = (root: string, file: string) => sha256Hex(fs.readFileSync(path.join(root, file)))
  const accept = (changes: ReadonlyArray<{ readonly path: string; readonly beforeHash: string | null; readonly after?: string; readonly delete?: true }>) =>
    Effect.gen(function* () {
      const { proposal } = yield* propose({ title: "xrefs", recipe: "manual", changeClass: "semantic", changes: changes.map((c) => ({ bundle: "mine", ...c })) })
      expect((yield* proposalAccept(proposal.id)).status).toBe("accepted")
    })
  const xrefBundle = Effect.gen(function* () {
    const root = yield* mine
    fs.mkdirSync(path.join(root, "knowledge"), { recursive: true })
    fs.writeFileSync(path.join(root, "knowledge", "target.md"), target(true))
    for (let i = 0; i < XREF_NOTES; i++) fs.writeFileSync(path.join(root, "knowledge", `f${String(i).padStart(2, "0")}.md`), xrefNote(i))
    yield* indexBundles({ bundle: "mine" })
    return root
  })

  it.scoped("bundle rules over refs: a section removed, a missing item created, an item deleted — rows and finding counts equal a full index", () =>
    Effect.gen(function* () {
      const root = yield* xrefBundle
      // Kept items that name the target's #limits now have a broken-ref finding (their rows are kept, the counts change).
      yield* accept([{ path: "knowledge/target.md", beforeHash: hashOf(root, "knowledge/target.md"), after: target(false) }])
      yield* compareWithFull("section-removed")
      // The item the others miss comes into being: their findings go.
      yield* accept([{ path: "knowledge/missing.md", beforeHash: null, after: "---\ndescription: Here now\n---\n# Missing\n" }])
      yield* compareWithFull("missing-created")
      // A delete: its row vanishes (found by the session's marks) and the item naming it gets a finding.
      yield* accept([{ path: "knowledge/f03.md", beforeHash: hashOf(root, "knowledge/f03.md"), delete: true }])
      yield* compareWithFull("deleted")
      const db = new Database((yield* WorkspaceConfig).paths.indexDb, { readonly: true })
      try {
        expect(db.prepare("SELECT count(*) AS n FROM documents WHERE ref = 'mine//knowledge/f03'").get()).toEqual({ n: 0 })
      } finally {
        db.close()
      }
    }).pipe(Effect.provide(akmTestWith(IndexStoreSqlite))), 60_000)

  it.scoped("a scan that keeps items reports the same findings, refs included, as a scan that reads every item", () =>
    Effect.gen(function* () {
      const root = yield* xrefBundle
      // Every item but the target is kept; the findings about kept items (their refs to #limits) must carry their refs.
      fs.writeFileSync(path.join(root, "knowledge", "target.md"), target(false))
      const { info, adapter } = yield* resolveBundle("mine")
      const store = yield* IndexStore
      const walked = yield* (yield* BundleFiles).walk(info.root, { includeHidden: false })
      const reuse = reusableItems((yield* store.manifest("mine"))!, walked.files, yield* store.itemInputs("mine"))
      let keptCount = 0
      const kept = yield* scanStreamed(info, adapter, walked, () => Effect.void, 64, { reusable: reuse.reusable, keep: (refs) => Effect.sync(() => void (keptCount += refs.length)) })
      const full = yield* scanStreamed(info, adapter, walked, () => Effect.void)
      expect(keptCount).toBe(XREF_NOTES)
      const limits = kept.diagnostics.filter((d) => d.message.includes("#limits"))
      expect(limits.length).toBe(XREF_NOTES / 3)
      expect(limits.every((d) => d.ref !== undefined && d.ref === `mine//${d.path.replace(/\.md$/, "")}`)).toBe(true)
      expect(kept.diagnostics).toEqual(full.diagnostics)
    }).pipe(Effect.provide(akmTestWith(IndexStoreSqlite))), 60_000)

  // Decision 0061: the refresh takes the validation's finding counts only when the tree and the index run are the ones
  // the validation saw. Between the engine's relisting and the refresh (a hook on BundleFiles.relist, which runs there),
  // something changes; the refresh must count afresh, and its rows and counts must equal a full index's.
  describe("the refresh takes the validation's counts only when nothing moved in between (decision 0061)", () => {
    /** What happens right after the engine relists what it wrote: once, then the hook is spent. */
    let between: ((root: string, written: ReadonlyArray<string>) => void) | undefined
    const HookedFiles = Layer.effect(
      BundleFiles,
      Effect.map(BundleFiles, (real) => BundleFiles.of({
        ...real,
        relist: (root, options, walked, paths) => {
          const result = real.relist?.(root, options, walked, paths)
          const hook = between
          between = undefined
          hook?.(root, paths)
          return result
        }
      }))
    ).pipe(Layer.provide(BundleFilesNode))
    const Hooked = akmTestWith(IndexStoreSqlite, HookedFiles)

    it.scoped("the written file changed outside akm before the refresh: a broken ref the validation never saw is counted", () =>
      Effect.gen(function* () {
        const root = yield* xrefBundle
        const changed = "---\ndescription: Rewritten by hand\nxrefs: [knowledge/nowhere-a, knowledge/nowhere-b]\n---\n# Fact 5\n\nEdited outside akm.\n"
        between = (at, written) => {
          for (const file of written) fs.writeFileSync(path.join(at, file), changed)
        }
        yield* accept([{ path: "knowledge/f05.md", beforeHash: hashOf(root, "knowledge/f05.md"), after: xrefNote(5).replace("Text 5.", "Text five.") }])
        expect(between).toBeUndefined()
        expect(fs.readFileSync(path.join(root, "knowledge/f05.md"), "utf8")).toBe(changed)
        yield* compareWithFull("changed-outside", { manifest: false })
        // The run after it sees the file's own stats and reads it again: then the manifest is a full index's too.
        yield* indexBundles({ bundle: "mine" })
        yield* compareWithFull("changed-outside-next")
      }).pipe(Effect.provide(Hooked)), 60_000)

    it.scoped("another index run committed before the refresh: the counts are not that run's plus the validation's difference", () =>
      Effect.gen(function* () {
        const root = yield* xrefBundle
        const indexDb = (yield* WorkspaceConfig).paths.indexDb
        // Another process's run: a new stamp, and counts this process did not compute (what its tree had then).
        between = () => {
          const db = new Database(indexDb)
          try {
            const stamp = "2030-01-01T00:00:00.000Z"
            db.prepare("UPDATE bundles SET indexed_at = ?, warnings = warnings + 7 WHERE name = 'mine'").run(stamp)
            db.prepare("UPDATE meta SET value = ? WHERE key = ?").run(JSON.stringify({ indexedAt: stamp, counts: { error: 0, warning: 0, info: 0 } }), "walk-findings\u0000mine")
          } finally {
            db.close()
          }
        }
        yield* accept([{ path: "knowledge/f07.md", beforeHash: hashOf(root, "knowledge/f07.md"), after: xrefNote(7).replace("Text 7.", "Text seven.") }])
        expect(between).toBeUndefined()
        yield* compareWithFull("indexed-between")
      }).pipe(Effect.provide(Hooked)), 60_000)
  })
})
