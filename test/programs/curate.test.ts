import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { cardText, curate, keywords } from "../../src/programs/curate.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { CANARY, indexedWorkspace, notesFiles, removeFolders, secretsFiles, skillsFiles } from "../support/indexedWorkspace.js"

afterAll(removeFolders)

const failureTag = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.failureOption(exit.cause)
  if (error._tag === "None") throw new Error(Cause.pretty(exit.cause))
  return (error.value as { _tag: string })._tag
}

const bundles = { notes: notesFiles, skills: skillsFiles, vault: secretsFiles }

describe("curate (spec 04 §5)", () => {
  it.effect("packs the best items into the budget: full text for the best, cards for the rest, exact tokens, rank order", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace(bundles)
      const result = yield* curate({ task: "fill a pdf form", budget: 4000 })
      expect(result.task).toBe("fill a pdf form")
      expect(result.budget).toBe(4000)
      expect(result.tokens).toBe(result.items.reduce((sum, item) => sum + item.tokens, 0))
      expect(result.tokens).toBeLessThanOrEqual(4000)
      const [first] = result.items
      expect(first).toMatchObject({ ref: "skills//pdf", type: "skill", level: "full", content: skillsFiles["pdf/SKILL.md"], next: "akm show skills//pdf" })
      expect(first!.tokens).toBe(countTokens(skillsFiles["pdf/SKILL.md"]!))
      for (const item of result.items.filter((i) => i.level === "card")) {
        expect(item.content).toBeUndefined()
        expect(item.tokens).toBe(countTokens(cardText(item)))
      }
      const scores = result.items.map((i) => i.score)
      expect(scores).toEqual([...scores].sort((a, b) => b - a))
      // A skill and its own reference are one family: at most one of them in full.
      const forms = result.items.find((i) => i.ref === "skills//pdf/references/forms")
      if (forms !== undefined) expect(forms.level).toBe("card")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a skill and its own reference are one family: only one of them in full, even with room for both", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ skills: skillsFiles })
      const result = yield* curate({ task: "pdf forms field", budget: 4000 })
      expect(result.items.map((i) => [i.ref, i.level])).toEqual([["skills//pdf", "full"], ["skills//pdf/references/forms", "card"]])
      // Both score close to each other, so only the family rule keeps the reference a card.
      expect(result.items[1]!.score).toBeGreaterThanOrEqual(0.6 * result.items[0]!.score)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a small budget gets cards only, and never more than fits", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace(bundles)
      for (const budget of [1, 25, 60, 150]) {
        const result = yield* curate({ task: "deploy guide install configure", budget })
        expect(result.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget)
      }
      const cards = yield* curate({ task: "deploy guide", budget: 120 })
      expect(cards.items.length).toBeGreaterThan(0)
      expect(cards.items.every((i) => i.level === "card")).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("env items come as key names, never values", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace(bundles)
      const result = yield* curate({ task: "app settings PORT API_TOKEN", budget: 4000 })
      expect(result.items.some((i) => i.ref === "vault//env/app")).toBe(true)
      expect(JSON.stringify(result)).not.toContain(CANARY)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("records the curated set as one search (so a following show is a select); --no-track records nothing", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace(bundles)
      const usage = yield* UsageLog
      yield* curate({ task: "restart the service", track: false })
      expect(yield* usage.events({ kind: "search" })).toEqual([])
      const result = yield* curate({ task: "restart the service" })
      const [event] = yield* usage.events({ kind: "search" })
      expect(event).toMatchObject({ query: "restart the service", refs: result.items.map((i) => i.ref), source: "user" })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("refuses an empty task, a budget below 1 and a limit below 1", () =>
    Effect.gen(function* () {
      expect(failureTag(yield* Effect.exit(curate({ task: "  " })))).toBe("UsageError")
      expect(failureTag(yield* Effect.exit(curate({ task: "x", budget: 0 })))).toBe("UsageError")
      expect(failureTag(yield* Effect.exit(curate({ task: "x", limit: 0 })))).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))
})

describe("keywords", () => {
  it("keeps the task's content words once per stem, in order", () => {
    expect(keywords("How do I deploy my Docker services and deploying the services?")).toEqual(["deploy", "docker", "services"])
    expect(keywords("the and of")).toEqual([])
  })
})
