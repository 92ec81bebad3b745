import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { buildPrompt, parseCandidateOutput } from "../../../src/layers/generator/prompt.js"
import { sampleRequest } from "../../support/generatorHarness.js"

/** The prompt a model sees and how its answer is read (spec 06 §5). */
describe("generator prompt and answer", () => {
  it("the prompt holds the task, the adapter's rules, the evidence, each target's text and the allowed paths — nothing else", () => {
    const request = sampleRequest({ targets: [{ bundle: "notes", path: "knowledge/deploy.md", content: "has ``` fences inside\n" }] })
    const { system, user } = buildPrompt(request)
    expect(system).toContain("JSON")
    for (const part of [request.instructions, request.authoring.instructions, "keep the frontmatter keys", "the deploy steps miss the migration step", "## Target: knowledge/deploy.md", "has ``` fences inside", "- knowledge/deploy.md"]) {
      expect(user).toContain(part)
    }
    // A target's own fence cannot close the block that quotes it.
    expect(user).toContain("````\nhas ``` fences inside\n\n````")
  })

  it("a file to create is announced as such", () => {
    const { user } = buildPrompt(sampleRequest({ targets: [{ bundle: "notes", path: "knowledge/new.md", content: null }] }))
    expect(user).toContain("does not exist yet")
  })

  it("reads the structured answer, tolerating a ```json fence; anything else is a reason", () => {
    const answer = { files: [{ path: "a.md", content: "x" }, { path: "gone.md", content: null }], rationale: "r" }
    expect(parseCandidateOutput(JSON.stringify(answer))).toEqual(Either.right(answer))
    expect(parseCandidateOutput("```json\n" + JSON.stringify(answer) + "\n```")).toEqual(Either.right(answer))
    expect(Either.getLeft(parseCandidateOutput("  ")).pipe((o) => o._tag)).toBe("Some")
    expect(parseCandidateOutput("not json")).toEqual(Either.left("the answer was not JSON"))
    expect(Either.isLeft(parseCandidateOutput(JSON.stringify({ files: [] })))).toBe(true)
    expect(Either.isLeft(parseCandidateOutput(JSON.stringify({ files: [{ path: "", content: "x" }] })))).toBe(true)
    expect(Either.isLeft(parseCandidateOutput(JSON.stringify({ files: [{ path: "a.md", content: 3 }] })))).toBe(true)
  })
})
