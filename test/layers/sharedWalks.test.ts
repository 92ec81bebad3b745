import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { shareWalks, unshared, unsharedUnless } from "../../src/services/BundleFiles.js"
import { recoveredNothing } from "../../src/programs/proposals/recover.js"

// Issue 13 item 3: a write's authoring and evaluation share one listing (shareWalks); what writes,
// and what follows a write, walks afresh (unshared) and drops the shared listing.

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

const bundle = () => {
  const root = mkdtempSync(join(tmpdir(), "akm-shared-walks-"))
  roots.push(root)
  writeFileSync(join(root, "a.md"), "a\n")
  return root
}

const files = makeBundleFiles()
const paths = (root: string) => Effect.map(files.walk(root, { includeHidden: false }), (w) => w.files.map((f) => f.path))

describe("shared walks", () => {
  it("outside shareWalks every walk lists the tree as it is", async () => {
    const root = bundle()
    const seen = await Effect.runPromise(Effect.gen(function* () {
      const first = yield* paths(root)
      writeFileSync(join(root, "b.md"), "b\n")
      return [first, yield* paths(root)]
    }))
    expect(seen).toEqual([["a.md"], ["a.md", "b.md"]])
  })

  it("inside shareWalks a second walk of the same root returns the first listing; another option walks on its own", async () => {
    const root = bundle()
    const seen = await Effect.runPromise(shareWalks(Effect.gen(function* () {
      const first = yield* paths(root)
      writeFileSync(join(root, "b.md"), "b\n")
      writeFileSync(join(root, ".hidden.md"), "h\n")
      const hidden = (yield* files.walk(root, { includeHidden: true })).files.map((f) => f.path)
      return [first, yield* paths(root), hidden]
    })))
    expect(seen).toEqual([["a.md"], ["a.md"], [".hidden.md", "a.md", "b.md"]])
  })

  it("unshared walks afresh and forgets the shared listing, also when it fails", async () => {
    const root = bundle()
    const seen = await Effect.runPromise(shareWalks(Effect.gen(function* () {
      const first = yield* paths(root)
      writeFileSync(join(root, "b.md"), "b\n")
      const inside = yield* unshared(paths(root))
      writeFileSync(join(root, "c.md"), "c\n")
      const after = yield* paths(root)
      yield* Effect.either(unshared(Effect.zipRight(Effect.sync(() => writeFileSync(join(root, "d.md"), "d\n")), Effect.fail("boom"))))
      return [first, inside, after, yield* paths(root)]
    })))
    expect(seen).toEqual([["a.md"], ["a.md", "b.md"], ["a.md", "b.md", "c.md"], ["a.md", "b.md", "c.md", "d.md"]])
  })

  it("unsharedUnless keeps the shared listing only when the step succeeded and wrote nothing", async () => {
    const root = bundle()
    const seen = await Effect.runPromise(shareWalks(Effect.gen(function* () {
      const first = yield* paths(root)
      // A recovery that found nothing: the listing stays shared (a file written meanwhile by another tool is not seen, as before).
      yield* unsharedUnless(Effect.sync(() => writeFileSync(join(root, "b.md"), "b\n")), () => true)
      const kept = yield* paths(root)
      // A recovery that rolled a journal back or forward: forgotten.
      yield* unsharedUnless(Effect.succeed({ rolledBack: ["t1"], rolledForward: [], refused: [] }), recoveredNothing)
      const afterRecovery = yield* paths(root)
      writeFileSync(join(root, "c.md"), "c\n")
      yield* unsharedUnless(Effect.succeed({ rolledBack: [], rolledForward: [], refused: [{ id: "t2", reason: "partly resolved" }] }), recoveredNothing)
      const afterRefused = yield* paths(root)
      writeFileSync(join(root, "d.md"), "d\n")
      yield* Effect.either(unsharedUnless(Effect.fail("boom"), () => true))
      const afterFailure = yield* paths(root)
      writeFileSync(join(root, "e.md"), "e\n")
      yield* unsharedUnless(Effect.succeed({ rolledBack: [], rolledForward: [], refused: [] }), recoveredNothing)
      return [first, kept, afterRecovery, afterRefused, afterFailure, yield* paths(root)]
    })))
    expect(seen).toEqual([
      ["a.md"],
      ["a.md"],
      ["a.md", "b.md"],
      ["a.md", "b.md", "c.md"],
      ["a.md", "b.md", "c.md", "d.md"],
      ["a.md", "b.md", "c.md", "d.md"]
    ])
  })
})
