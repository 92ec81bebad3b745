import * as fs from "node:fs"
import * as path from "node:path"
import { Cause, Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BundleSource } from "../../src/domain/Config.js"
import type { LockedBundle } from "../../src/domain/Lock.js"
import type { Materialized, Materializer } from "../../src/services/Materializer.js"

/**
 * What every source kind's materializer promises (spec 02 §2, R-BUN-2, R-BUN-3),
 * whatever fetches the bytes: a root that is a directory holding the source's
 * files; a change upstream gives a new root while the old one stays as it was;
 * a failing source fails typed and touches nothing; discard removes cache copies
 * and never a user's folder; rename moves them.
 */
export interface MaterializerFixture {
  readonly materializer: Materializer["Type"]
  readonly source: BundleSource
  /** A file path (relative to the root) and the text it holds now. */
  readonly probe: () => { readonly file: string; readonly text: string }
  /** Changes the upstream so the next materialize sees new content. */
  readonly change: () => Promise<void>
  /** Breaks the upstream so the next materialize fails. */
  readonly breakSource: () => Promise<void>
  /** Undoes breakSource (a user's folder the test moved away). */
  readonly repair?: () => Promise<void>
  /** Whether the bytes are a cache copy (false: used in place). */
  readonly cached: boolean
  readonly sourcesDir: string
  readonly cleanup: () => Promise<void>
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (Exit.isFailure(exit)) throw new Error(Cause.pretty(exit.cause))
    return exit.value
  })

const asLock = (m: Materialized, source: BundleSource): LockedBundle => ({
  source: { kind: source.kind, locator: m.locator },
  revision: m.revision,
  ...(m.integrity === undefined ? {} : { integrity: m.integrity }),
  root: m.root,
  adapter: { id: "generic-files", version: "1" },
  installedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
})

/** A digest of every file below a directory (names and bytes). */
const treeOf = (root: string): string =>
  (fs.readdirSync(root, { recursive: true }) as Array<string>)
    .sort()
    .map((rel) => {
      const full = path.join(root, rel)
      const stat = fs.lstatSync(full)
      return stat.isFile() ? `${rel}:${fs.readFileSync(full, "base64")}` : `${rel}/`
    })
    .join("\n")

export const materializerContract = (label: string, setup: () => Promise<MaterializerFixture>): void => {
  describe(`Materializer contract: ${label}`, () => {
    let fx: MaterializerFixture
    beforeAll(async () => {
      fx = await setup()
    }, 60_000)
    afterAll(async () => {
      await fx?.cleanup()
    })

    it("materializes a directory holding the source's files; a change gives a new revision and leaves the old root as it was; a broken source fails typed", async () => {
      const first = await run(fx.materializer.materialize("kb", fx.source))
      expect(fs.statSync(first.root).isDirectory()).toBe(true)
      const probe = fx.probe()
      expect(fs.readFileSync(path.join(first.root, probe.file), "utf8")).toContain(probe.text)
      if (fx.cached) expect(first.root.startsWith(path.join(fx.sourcesDir, "kb") + path.sep)).toBe(true)
      expect(first.locator.length).toBeGreaterThan(0)

      await fx.change()
      const before = fx.cached ? treeOf(first.root) : ""
      const second = await run(fx.materializer.materialize("kb", fx.source, { previous: asLock(first, fx.source) }))
      const changed = fx.probe()
      expect(fs.readFileSync(path.join(second.root, changed.file), "utf8")).toContain(changed.text)
      if (fx.cached) {
        expect(second.root).not.toBe(first.root)
        expect(second.revision).not.toBe(first.revision)
        // R-BUN-2: the revision in use is never touched by a refresh.
        expect(treeOf(first.root)).toBe(before)
      }

      await fx.breakSource()
      const exit = await Effect.runPromiseExit(fx.materializer.materialize("kb", fx.source, { previous: asLock(second, fx.source) }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.failureOption(exit.cause).pipe((o) => o._tag === "Some" && o.value._tag)).toBe("MaterializeFailed")
      if (fx.cached) {
        expect(fs.existsSync(second.root)).toBe(true)
        expect(fs.readdirSync(path.join(fx.sourcesDir, "kb")).filter((n) => n.startsWith(".staging-"))).toEqual([])

        // prune keeps only the root in use; rename moves it; discard removes everything.
        await run(fx.materializer.prune("kb", fx.source, second.root))
        expect(fs.existsSync(first.root)).toBe(false)
        expect(fs.existsSync(second.root)).toBe(true)
        const moved = await run(fx.materializer.rename("kb", "kb2", fx.source, second.root))
        expect(moved.startsWith(path.join(fx.sourcesDir, "kb2") + path.sep)).toBe(true)
        expect(fs.existsSync(moved)).toBe(true)
        expect(fs.existsSync(path.join(fx.sourcesDir, "kb"))).toBe(false)
        await run(fx.materializer.discard("kb2", fx.source))
        expect(fs.existsSync(path.join(fx.sourcesDir, "kb2"))).toBe(false)
      } else {
        // A user's own folder: never moved, never deleted.
        await fx.repair?.()
        expect(await run(fx.materializer.rename("kb", "kb2", fx.source, second.root))).toBe(second.root)
        await run(fx.materializer.discard("kb", fx.source))
        expect(fs.existsSync(second.root)).toBe(true)
      }
    }, 60_000)
  })
}
