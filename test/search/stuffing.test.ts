import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rank, RANKING, type RankingFeatures } from "../../src/domain/Ranking.js"
import { tokenize } from "../../src/domain/Query.js"
import { itemDiversity, saturateField, textDiversity } from "../../src/domain/TextSignals.js"
import { search } from "../../src/programs/search.js"
import { libraryWorkspace } from "./libraryWorkspace.js"

/**
 * Keyword stuffing (issue 25): each of the three defences on a stuffed twin of
 * a real item of the natural-language set, `skills/kubernetes-rollback`.
 */
const FIXTURE = path.join(__dirname, "..", "fixtures", "search-quality", "library", "skills", "kubernetes-rollback", "SKILL.md")
const real = fs.readFileSync(FIXTURE, "utf8")
const body = real.replace(/^---[\s\S]*?---\n/, "")
const QUESTION = "undo a kubernetes deploy that broke production"
const stuffing = (times: number) => Array.from({ length: times }, () => "Undo kubernetes deploy rollback broke production.").join(" ")
const max = (words: ReadonlyArray<string>) => Math.max(...[...words.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>()).values()])
const features = (diversity: number | undefined): RankingFeatures => ({
  relevance: 1, coverage: 1, exactName: false, exactAlias: false, nameCoverage: 0.5, tagMatch: 0, belief: "current", stale: false, diversity
})

describe("term-frequency saturation per field", () => {
  it("keeps at most FIELD_TERM_CAP occurrences of a word in a field of the stuffed twin, and leaves the real text alone", () => {
    const description = "Roll back a broken Kubernetes deployment to the previous revision with kubectl rollout."
    expect(saturateField(description)).toBe(description)
    const twin = saturateField(`${body}\n${stuffing(40)}`)
    expect(max(tokenize(twin))).toBeLessThanOrEqual(RANKING.fieldTermCap)
    // Every word of the real text is still there: nothing is lost that a query could ask for.
    for (const word of new Set(tokenize(body))) expect(tokenize(twin)).toContain(word)
  })
})

describe("field length that padding does not grow", () => {
  it("padding the twin with 40 or 400 repeats gives the same indexed field: repeats add neither frequency nor length", () => {
    const padded = (times: number) => saturateField(`${body}\n${stuffing(times)}`)
    expect(padded(400)).toBe(padded(40))
    expect(tokenize(padded(400)).length - tokenize(saturateField(body)).length).toBeLessThanOrEqual(RANKING.fieldTermCap * new Set(tokenize(stuffing(1))).size)
  })
})

describe("low-diversity penalty", () => {
  it("measures prose near 1 and a stuffed twin far below LOW_DIVERSITY, whatever its length", () => {
    expect(itemDiversity({ name: "kubernetes-rollback", description: "Roll back a broken Kubernetes deployment", content: body })).toBeGreaterThan(0.9)
    expect(textDiversity(stuffing(14))).toBeLessThan(RANKING.lowDiversity / 2)
    expect(textDiversity(stuffing(200))).toBeLessThan(RANKING.lowDiversity / 2)
    expect(textDiversity("Production runs PostgreSQL 15.")).toBe(1)
  })

  it("ranks the twin below the real item on otherwise equal features, and says why", () => {
    const twin = rank(features(textDiversity(stuffing(14))))
    const original = rank(features(textDiversity(body)))
    expect(twin.raw).toBeLessThan(original.raw * 0.5)
    expect(twin.signals).toContain("low-diversity")
    expect(rank(features(undefined)).raw).toBe(original.raw)
  })
})

describe("search over a real index: the stuffed twins of kubernetes-rollback", () => {
  const { runtime, write, mount, dispose } = libraryWorkspace("akm-stuffing-")
  beforeAll(async () => {
    write("skills/kubernetes-rollback/SKILL.md", real)
    // Keywords only, fourteen times over: the low-diversity twin.
    write("knowledge/kubernetes-deploy-undo-tips.md", `---\ndescription: "Undo a kubernetes deploy that broke production"\n---\n# Kubernetes deploy undo\n\n${stuffing(14)}\n`)
    // The real text padded with the question's words: diverse enough, so only the cap stands between it and first place.
    write("knowledge/kubernetes-rollback-padded.md", `---\ndescription: "Roll back a broken Kubernetes deployment"\n---\n${body}\n${"Undo the kubernetes rollout. ".repeat(30)}\n`)
    write("knowledge/unrelated.md", "---\ndescription: \"Rotate logs on the servers\"\n---\n# Logs\n\nRotate and compress the application logs daily with logrotate.\n")
    await mount()
  }, 60_000)
  afterAll(dispose)

  it("the item that answers ranks above the keyword-stuffed twin, which is still found", async () => {
    const hits = (await runtime.runPromise(search({ query: QUESTION, track: false }))).hits
    const order = hits.map((h) => h.ref)
    expect(order.indexOf("library//skills/kubernetes-rollback")).toBeLessThan(order.indexOf("library//knowledge/kubernetes-deploy-undo-tips"))
    expect(hits.find((h) => h.ref === "library//knowledge/kubernetes-deploy-undo-tips")?.why).toContain("low-diversity")
  })

  it("padding the real text with its own words that the question asks for does not lift it above the original", async () => {
    const hits = (await runtime.runPromise(search({ query: QUESTION, track: false }))).hits
    const score = (ref: string) => hits.find((h) => h.ref === ref)!.score
    expect(score("library//knowledge/kubernetes-rollback-padded")).toBeLessThan(score("library//skills/kubernetes-rollback"))
  })
})
