import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { Transaction } from "../../src/services/Transaction.js"

/**
 * What every Transaction layer does (spec 05 §2, R-TX-1/6/7/9), over real
 * bundle roots. `setup` makes a workspace with bundle "notes" holding `files`
 * (and `others`: more bundles by name) and returns the service and the roots.
 */
export interface ContractWorkspace {
  readonly transaction: Transaction["Type"]
  readonly roots: Readonly<Record<string, string>>
  readonly dispose: () => void
}

export type ContractSetup = (files: Readonly<Record<string, string>>, others?: Readonly<Record<string, Readonly<Record<string, string>>>>) => ContractWorkspace

const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex")

export const transactionContract = (name: string, setup: ContractSetup) =>
  describe(`Transaction contract: ${name}`, () => {
    const open: Array<ContractWorkspace> = []
    afterEach(() => {
      for (const ws of open.splice(0)) ws.dispose()
    })
    const workspace: ContractSetup = (files, others) => {
      const ws = setup(files, others)
      open.push(ws)
      return ws
    }
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
    const read = (root: string, rel: string) => (fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), "utf8") : undefined)

    it("applies creates, updates and deletes as one set and reports hashes and backups", async () => {
      const ws = workspace({ "knowledge/a.md": "# A\n\nold\n", "knowledge/gone.md": "# Gone\n\nbye\n" })
      const root = ws.roots.notes!
      const result = await run(ws.transaction.apply({
        id: "c-apply",
        changes: [
          { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnew\n" },
          { bundle: "notes", path: "knowledge/fresh/c.md", beforeHash: null, after: "# C\n\ncreated\n" },
          { bundle: "notes", path: "knowledge/gone.md", beforeHash: sha256("# Gone\n\nbye\n"), delete: true }
        ]
      }))
      expect(Either.isRight(result)).toBe(true)
      const applied = Either.getOrThrow(result)
      expect(applied.id).toBe("c-apply")
      expect(applied.changes).toEqual([
        { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), afterHash: sha256("# A\n\nnew\n"), backup: sha256("# A\n\nold\n") },
        { bundle: "notes", path: "knowledge/fresh/c.md", beforeHash: null, afterHash: sha256("# C\n\ncreated\n") },
        { bundle: "notes", path: "knowledge/gone.md", beforeHash: sha256("# Gone\n\nbye\n"), afterHash: null, backup: sha256("# Gone\n\nbye\n") }
      ])
      expect([read(root, "knowledge/a.md"), read(root, "knowledge/fresh/c.md"), read(root, "knowledge/gone.md")]).toEqual(["# A\n\nnew\n", "# C\n\ncreated\n", undefined])
      const backup = Either.getOrThrow(await run(ws.transaction.blob(sha256("# Gone\n\nbye\n"))))
      expect(new TextDecoder().decode(backup)).toBe("# Gone\n\nbye\n")
    })

    it("refuses the whole set when one before-hash is stale, naming the file and writing nothing", async () => {
      const ws = workspace({ "knowledge/a.md": "a", "knowledge/b.md": "b" })
      const root = ws.roots.notes!
      const result = await run(ws.transaction.apply({
        id: "c-stale",
        changes: [
          { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "A" },
          { bundle: "notes", path: "knowledge/b.md", beforeHash: sha256("edited meanwhile"), after: "B" }
        ]
      }))
      expect(result).toMatchObject({ left: { _tag: "StaleBeforeHash", bundle: "notes", path: "knowledge/b.md", expected: sha256("edited meanwhile"), actual: sha256("b") } })
      expect([read(root, "knowledge/a.md"), read(root, "knowledge/b.md")]).toEqual(["a", "b"])
      const exists = await run(ws.transaction.apply({ id: "c-exists", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: null, after: "x" }] }))
      expect(exists).toMatchObject({ left: { _tag: "StaleBeforeHash", path: "knowledge/a.md", expected: null, actual: sha256("a") } })
    })

    it("reverts an applied set to the previous bytes, and refuses naming a file edited since", async () => {
      const ws = workspace({ "knowledge/a.md": "# A\n\nv1\n", "knowledge/b.md": "# B\n\nv1\n" })
      const root = ws.roots.notes!
      const applied = Either.getOrThrow(await run(ws.transaction.apply({
        id: "c-rev",
        changes: [
          { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nv1\n"), after: "# A\n\nv2\n" },
          { bundle: "notes", path: "knowledge/new.md", beforeHash: null, after: "# New\n\nv2\n" }
        ]
      })))
      const reverted = await run(ws.transaction.revert({ id: "c-rev-undo", changes: applied.changes }))
      expect(Either.isRight(reverted)).toBe(true)
      expect([read(root, "knowledge/a.md"), read(root, "knowledge/new.md")]).toEqual(["# A\n\nv1\n", undefined])

      const again = Either.getOrThrow(await run(ws.transaction.apply({ id: "c-rev2", changes: [{ bundle: "notes", path: "knowledge/b.md", beforeHash: sha256("# B\n\nv1\n"), after: "# B\n\nv2\n" }] })))
      fs.writeFileSync(path.join(root, "knowledge/b.md"), "# B\n\nedited by hand\n")
      const refused = await run(ws.transaction.revert({ id: "c-rev2-undo", changes: again.changes }))
      expect(refused).toMatchObject({ left: { _tag: "StaleBeforeHash", path: "knowledge/b.md" } })
      expect(read(root, "knowledge/b.md")).toBe("# B\n\nedited by hand\n")
    })

    it("recovers nothing on a clean workspace", async () => {
      const ws = workspace({ "knowledge/a.md": "a" })
      expect(Either.getOrThrow(await run(ws.transaction.recover))).toEqual({ rolledBack: [], rolledForward: [], refused: [] })
    })

    it("knows no blob it never stored", async () => {
      const ws = workspace({})
      expect(Either.getOrThrow(await run(ws.transaction.blob(sha256("never stored"))))).toBeUndefined()
      expect(Either.getOrThrow(await run(ws.transaction.blob("../../etc/passwd")))).toBeUndefined()
    })

    it("moves across bundles in two phases: publish, then retire the source", async () => {
      const ws = workspace({ "memories/m.md": "# M\n\nremembered\n" }, { team: {} })
      const result = Either.getOrThrow(await run(ws.transaction.twoPhase(
        { id: "c-move", changes: [{ bundle: "team", path: "knowledge/m.md", beforeHash: null, after: "# M\n\nremembered\n" }] },
        { id: "c-move-retire", changes: [{ bundle: "notes", path: "memories/m.md", beforeHash: sha256("# M\n\nremembered\n"), delete: true }] }
      )))
      expect(result.retire?.changes).toHaveLength(1)
      expect(read(ws.roots.team!, "knowledge/m.md")).toBe("# M\n\nremembered\n")
      expect(read(ws.roots.notes!, "memories/m.md")).toBeUndefined()
    })
  })
