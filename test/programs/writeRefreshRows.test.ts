import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { IndexStoreSqlite, makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { proposalNew } from "../../src/programs/proposals/new.js"
import { remember } from "../../src/programs/remember.js"
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
const compareWithFull = (label: string) =>
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
    expect(now).toEqual(full)
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
    }).pipe(Effect.provide(IndexStoreSqlite), Effect.provide(AkmTest)), 60_000)
})
