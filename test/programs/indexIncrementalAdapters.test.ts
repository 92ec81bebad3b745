import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { caller, folder, adapterFixtures, markdownFiles } from "./writeFixtures.js"

// R-IDX-2 over every adapter's fixture: after edits, an added file and a removed one, the incremental index
// (items kept unread where their inputs did not change) must be exactly what a full rescan produces.

const fixtures = adapterFixtures

/** Appends a line and moves the mtime past anything the manifest saw. */
const touch = (file: string, line: string) => {
  fs.appendFileSync(file, `\n${line}\n`)
  const later = new Date(fs.statSync(file).mtimeMs + 10_000)
  fs.utimesSync(file, later, later)
}

/** An incremental run, then a full rescan that must find nothing to change and the same findings. */
const incrementalEqualsFull = Effect.gen(function* () {
  const incremental = (yield* indexBundles({})).bundles[0]!
  const full = (yield* indexBundles({ full: true })).bundles[0]!
  expect({ added: full.added, updated: full.updated, removed: full.removed }).toEqual({ added: 0, updated: 0, removed: 0 })
  expect(full.unchanged).toBe(incremental.added + incremental.updated + incremental.unchanged)
  expect(full.diagnostics).toEqual(incremental.diagnostics)
  return incremental
})

describe("incremental index equals a full rescan on every adapter's fixture (R-IDX-2)", () => {
  for (const fixture of fs.readdirSync(fixtures).sort()) {
    it.effect(fixture, () =>
      Effect.gen(function* () {
        const root = folder()
        fs.cpSync(path.join(fixtures, fixture), root, { recursive: true, preserveTimestamps: true })
        yield* bundleAdd({ source: root, name: "b", ...caller })
        const markdown = markdownFiles(root)

        // Every third markdown file edited.
        markdown.forEach((file, i) => {
          if (i % 3 === 0) touch(path.join(root, file), `Edited line ${i} mentions zebra.`)
        })
        yield* incrementalEqualsFull

        // A new page beside the first one, and the last one removed.
        if (markdown.length > 0) {
          fs.writeFileSync(path.join(root, path.dirname(markdown[0]!), "added-page.md"), "# Added page\n\nA page that was not there before. See [first](./" + path.basename(markdown[0]!) + ").\n")
          if (markdown.length > 1) fs.rmSync(path.join(root, markdown[markdown.length - 1]!))
        }
        yield* incrementalEqualsFull

        // Nothing changed since: the bundle is skipped.
        expect((yield* indexBundles({})).bundles[0]!.status).toBe("unchanged")
      }).pipe(Effect.provide(AkmTest)))
  }
})
