import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type { Binding } from "../../src/domain/RuntimeExport.js"
import { Bindings } from "../../src/services/Bindings.js"

/** R-ARCH-5: every Bindings layer passes this suite; each case uses aliases of its own. */
let counter = 0
const binding = (overrides: Partial<Binding> = {}): Binding => ({
  alias: `alias-${++counter}`,
  exportRef: `team//env/x${counter}`,
  kind: "environment",
  digest: "a".repeat(64),
  definition: "API_TOKEN\n",
  params: { region: "eu" },
  env: { API_TOKEN: "secret:mine//secrets/api" },
  source: "git",
  approvedAt: "2026-12-01T10:00:00.000Z",
  ...overrides
})

export const bindingsContract = (name: string, layer: Layer.Layer<Bindings, unknown>) =>
  layer_(layer)(`Bindings contract: ${name}`, (it) => {
    it.effect("add then get returns the binding as stored, params and env references included", () =>
      Effect.gen(function* () {
        const store = yield* Bindings
        const b = binding()
        expect(yield* store.add(b)).toBe(true)
        expect(yield* store.get(b.alias)).toEqual(b)
        expect((yield* store.list).map((x) => x.alias)).toContain(b.alias)
      }))

    it.effect("an alias is taken once: a second add changes nothing", () =>
      Effect.gen(function* () {
        const store = yield* Bindings
        const b = binding()
        yield* store.add(b)
        expect(yield* store.add({ ...b, exportRef: "other//env/y", digest: "b".repeat(64) })).toBe(false)
        expect(yield* store.get(b.alias)).toEqual(b)
      }))

    it.effect("forExport lists the bindings of one export ref; remove forgets one", () =>
      Effect.gen(function* () {
        const store = yield* Bindings
        const first = binding()
        const second = binding({ exportRef: first.exportRef })
        yield* store.add(first)
        yield* store.add(second)
        expect((yield* store.forExport(first.exportRef)).map((b) => b.alias).sort()).toEqual([first.alias, second.alias].sort())
        expect(yield* store.remove(first.alias)).toBe(true)
        expect(yield* store.remove(first.alias)).toBe(false)
        expect(yield* store.get(first.alias)).toBeUndefined()
        expect((yield* store.forExport(first.exportRef)).map((b) => b.alias)).toEqual([second.alias])
      }))

    it.effect("approve replaces the digest, definition and time of one alias only (R-RT-3)", () =>
      Effect.gen(function* () {
        const store = yield* Bindings
        const b = binding()
        const other = binding()
        yield* store.add(b)
        yield* store.add(other)
        const approval = { digest: "c".repeat(64), definition: "API_TOKEN\nEXTRA\n", approvedAt: "2026-12-02T10:00:00.000Z" }
        expect(yield* store.approve(b.alias, approval)).toBe(true)
        expect(yield* store.get(b.alias)).toEqual({ ...b, ...approval })
        expect(yield* store.get(other.alias)).toEqual(other)
        expect(yield* store.approve("no-such-alias", approval)).toBe(false)
      }))

    it.effect("renameBundle rekeys the export refs of one bundle only (R-REF-6)", () =>
      Effect.gen(function* () {
        const store = yield* Bindings
        const moved = binding({ exportRef: "ops//env/deploy" })
        const kept = binding({ exportRef: "ops-archive//env/deploy" })
        yield* store.add(moved)
        yield* store.add(kept)
        yield* store.renameBundle("ops", "platform")
        expect((yield* store.get(moved.alias))!.exportRef).toBe("platform//env/deploy")
        expect((yield* store.get(kept.alias))!.exportRef).toBe("ops-archive//env/deploy")
      }))
  })
