import { afterAll, describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { sha256Hex } from "../../src/domain/Proposal.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { propose } from "../../src/programs/proposals/propose.js"
import { remember } from "../../src/programs/remember.js"
import { resolveBundle } from "../../src/programs/scan.js"
import { BundleFiles, carryListings, takeCarried } from "../../src/services/BundleFiles.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { Transaction } from "../../src/services/Transaction.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { readRows } from "../support/readDatabase.js"

// Issue 13 item 3 (decision 0038): an accept's index refresh takes the listing its engine walked under the
// lease, relisted past the write (the written paths stat-ed again), instead of walking the bundle again.
// The relisting must be what a walk would list, and the index it leaves must be the one a full rebuild makes.

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const temp = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}

const ITEMS = 30

/** A workspace on the live layers (SQLite index) with an indexed akm bundle "w". */
const workspace = async () => {
  const home = temp("akm-carried-")
  const root = path.join(home, "bundle")
  const files: Record<string, string> = {
    "knowledge/guide.md": "---\ndescription: The guide\n---\n# Guide\n\n## Rollback\n\nUndo it.\n",
    "tasks/nightly.yml": "schedule: \"0 3 * * *\"\nprompt: run the nightly check\n",
    "notes/.gitignore": "scratch-*.md\n"
  }
  for (let i = 0; i < ITEMS; i++) files[`memories/m${i}.md`] = `---\ndescription: Memory ${i}\nxrefs: [memories/m${(i + 1) % ITEMS}]\n---\n# Memory ${i}\n\nSee [the next one](m${(i + 1) % ITEMS}.md).\n`
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), text)
  }
  const runtime = ManagedRuntime.make(makeAkmLive({ configDir: path.join(home, "c"), dataDir: path.join(home, "d"), cacheDir: path.join(home, "k"), quiet: true }))
  await runtime.runPromise(bundleAdd({ source: root, name: "w", adapter: "akm", writable: true, cwd: home, home }))
  await runtime.runPromise(indexBundles({}))
  const indexDb = await runtime.runPromise(Effect.map(WorkspaceConfig, (config) => config.paths.indexDb))
  return { root, runtime, indexDb }
}

const text = (root: string, file: string) => fs.readFileSync(path.join(root, file), "utf8")
const hashOf = (root: string, file: string) => sha256Hex(fs.readFileSync(path.join(root, file)))

/** Everything the index holds of its items, by ref (row ids and the run's timestamp left out). */
const dump = (file: string) => ({
  documents: readRows<Record<string, unknown>>(file, "SELECT * FROM documents ORDER BY ref").map(({ id: _id, ...row }) => row),
  json: readRows(file, "SELECT d.ref, j.doc, j.inputs FROM document_json j JOIN documents d ON d.id = j.id ORDER BY d.ref"),
  links: readRows(file, "SELECT d.ref, l.target FROM links l JOIN documents d ON d.id = l.document_id ORDER BY d.ref, l.target"),
  outline: readRows(file, "SELECT d.ref, o.position, o.depth, o.text, o.slug FROM outline o JOIN documents d ON d.id = o.document_id ORDER BY d.ref, o.position"),
  trigram: readRows(file, "SELECT d.ref, t.name, t.description, t.tags, t.content FROM documents_trigram t JOIN documents d ON d.id = t.rowid ORDER BY d.ref"),
  vocabulary: readRows(file, "SELECT term, doc, cnt FROM documents_vocab ORDER BY term"),
  bundles: readRows<Record<string, unknown>>(file, "SELECT * FROM bundles ORDER BY name").map(({ indexed_at: _at, ...row }) => row),
  manifest: readRows(file, "SELECT * FROM manifest ORDER BY bundle, path")
})

/** Nothing is left for `akm index` to do after the write, and a full rebuild writes the same rows as its refresh did. */
const expectFullRebuildEqual = async (runtime: Awaited<ReturnType<typeof workspace>>["runtime"], indexDb: string) => {
  const incremental = dump(indexDb)
  expect((await runtime.runPromise(indexBundles({}))).bundles[0]?.status).toBe("unchanged")
  await runtime.runPromise(indexBundles({ full: true }))
  expect(incremental).toEqual(dump(indexDb))
}

describe("an accept's refresh takes the engine's listing (decision 0038)", () => {
  it("the engine relists its validation's walk past the write: the listing a fresh walk makes", async () => {
    const { root, runtime } = await workspace()
    try {
      const program = Effect.gen(function* () {
        const { info, adapter } = yield* resolveBundle("w")
        const options = { includeHidden: adapter.includeHidden ?? false }
        const carried = yield* carryListings(Effect.gen(function* () {
          yield* (yield* Transaction).apply({
            id: "carried-1",
            changes: [
              { bundle: "w", path: "memories/m3.md", beforeHash: hashOf(root, "memories/m3.md"), after: `${text(root, "memories/m3.md")}\nOne more line.\n` },
              { bundle: "w", path: "memories/fresh.md", beforeHash: null, after: "---\ndescription: Fresh\n---\n# Fresh\n\nNew here.\n" },
              // Ignored by notes/.gitignore: a walk does not list it, and neither may the relisting.
              { bundle: "w", path: "notes/scratch-1.md", beforeHash: null, after: "# Scratch\n" },
              { bundle: "w", path: "tasks/nightly.yml", beforeHash: hashOf(root, "tasks/nightly.yml"), delete: true }
            ]
          })
          return yield* takeCarried(info.root, options)
        }))
        const walked = yield* (yield* BundleFiles).walk(info.root, options)
        return { carried, walked }
      })
      const { carried, walked } = await runtime.runPromise(program)
      expect(carried?.written).toBe(true)
      expect(carried?.result.files).toEqual(walked.files)
      const paths = walked.files.map((f) => f.path)
      expect(paths).toContain("memories/fresh.md")
      expect(paths).not.toContain("notes/scratch-1.md")
      expect(paths).not.toContain("tasks/nightly.yml")
    } finally {
      await runtime.dispose()
    }
  })

  it("a written .gitignore is not relisted: the refresh walks", async () => {
    const { root, runtime } = await workspace()
    try {
      const carried = await runtime.runPromise(Effect.gen(function* () {
        const { info, adapter } = yield* resolveBundle("w")
        return yield* carryListings(Effect.gen(function* () {
          yield* (yield* Transaction).apply({ id: "carried-2", changes: [{ bundle: "w", path: "memories/.gitignore", beforeHash: null, after: "m1.md\n" }] })
          return yield* takeCarried(info.root, { includeHidden: adapter.includeHidden ?? false })
        }))
      }))
      expect(carried).toBeUndefined()
      expect(fs.existsSync(path.join(root, "memories/.gitignore"))).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })

  it("after accepting a change, an add and a delete, index.db equals a full rebuild's and holds the new content", async () => {
    const { root, runtime, indexDb } = await workspace()
    try {
      const { proposal } = await runtime.runPromise(propose({
        title: "three files",
        recipe: "manual",
        changeClass: "semantic",
        changes: [
          { bundle: "w", path: "memories/m3.md", beforeHash: hashOf(root, "memories/m3.md"), after: text(root, "memories/m3.md").replace("# Memory 3", "# Memory three\n\nThe zanzibar runbook moved.") },
          { bundle: "w", path: "memories/fresh.md", beforeHash: null, after: "---\ndescription: Fresh quokka notes\nxrefs: [memories/m1]\n---\n# Fresh\n\nSee [one](m1.md).\n" },
          { bundle: "w", path: "tasks/nightly.yml", beforeHash: hashOf(root, "tasks/nightly.yml"), delete: true }
        ]
      }))
      const accepted = await runtime.runPromise(proposalAccept(proposal.id))
      expect(accepted.status).toBe("accepted")
      expect(accepted.warnings).toEqual([])
      // The refresh found the new content.
      const found = await runtime.runPromise(Effect.gen(function* () {
        const store = yield* IndexStore
        return { edited: yield* store.resolve("w//memories/m3"), added: yield* store.resolve("w//memories/fresh"), deleted: yield* store.resolve("w//tasks/nightly") }
      }))
      expect(found.edited?.content).toContain("zanzibar")
      expect(found.added?.description).toBe("Fresh quokka notes")
      expect(found.deleted).toBeUndefined()
      await expectFullRebuildEqual(runtime, indexDb)
    } finally {
      await runtime.dispose()
    }
  })

  it("remember refreshes after letting the held lease go, from the engine's relisting: index.db equals a full rebuild's (decision 0049)", async () => {
    const { runtime, indexDb } = await workspace()
    try {
      const made = await runtime.runPromise(remember({ text: "The quokka runbook lives in the ops wiki.", bundle: "w" }))
      expect(made.status).toBe("accepted")
      const found = await runtime.runPromise(Effect.flatMap(IndexStore, (store) => store.resolve(made.ref!)))
      expect(found?.content).toContain("quokka runbook")
      expect(fs.existsSync(path.join(made.path))).toBe(true)
      await expectFullRebuildEqual(runtime, indexDb)
    } finally {
      await runtime.dispose()
    }
  })
})
