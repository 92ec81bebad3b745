import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { search } from "../../src/programs/search.js"
import { libraryWorkspace } from "./libraryWorkspace.js"

/**
 * Related developer vocabulary (decision 0051) over a real index of the
 * natural-language set's library, on nl/commit-wording of its tuning half:
 * the answer says "write" where the question says "word", and a look-alike
 * holds the question's "description" (without related words it ranked first).
 */
const FIXTURES = path.join(__dirname, "..", "fixtures", "search-quality", "library")
const QUESTION = "how should I word the description of a commit"

describe("search over a real index: a question in other words", () => {
  const { library, runtime, write, mount, dispose } = libraryWorkspace("akm-related-")
  const refs = async (query: string) => (await runtime.runPromise(search({ query, track: false }))).hits
  beforeAll(async () => {
    // The whole library: how rare "commit" and "description" are decides the case.
    fs.cpSync(FIXTURES, library, { recursive: true })
    // Says only related words ("write", "explain") and none of the question's: not a candidate at all.
    write("knowledge/writing-style.md", "---\ndescription: \"Write and explain in plain English\"\ntags: [writing]\n---\n# Writing style\n\nShort sentences, active voice.\n")
    await mount()
  }, 60_000)
  afterAll(dispose)

  it("ranks the answer that says it in related words above the look-alike holding one of the question's words, and says why", async () => {
    const hits = await refs(QUESTION)
    expect(hits.map((h) => h.ref).slice(0, 2)).toEqual(["library//knowledge/commit-messages", "library//commands/open-pr"])
    expect(hits[0]!.why).toContain("related-terms")
    expect(hits[1]!.why).not.toContain("related-terms")
  })

  it("never finds an item that shares only related words with the question", async () => {
    expect((await refs(QUESTION)).map((h) => h.ref)).not.toContain("library//knowledge/writing-style")
  })

  it("the question's own words still win: an item holding them ranks above one found through related words", async () => {
    const hits = await refs("how should I write commit messages")
    expect(hits[0]!.ref).toBe("library//knowledge/commit-messages")
    expect(hits[0]!.why).not.toContain("related-terms")
  })
})
