import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { search } from "../../src/programs/search.js"
import { libraryWorkspace } from "./libraryWorkspace.js"

/**
 * Framing words dropped from questions (domain/Query.ts FRAMING_WORDS,
 * decision 0056) over a real index of the natural-language set's library, on
 * nl/naming-tables of its tuning half: the decoy `skills/database-migrations`
 * holds "new" ("add new columns or tables") and ranked first while "new" was
 * a word of the question; the answer names what the question asks.
 */
const FIXTURES = path.join(__dirname, "..", "fixtures", "search-quality", "library")

describe("search over a real index: words that frame a question", () => {
  const { library, runtime, mount, dispose } = libraryWorkspace("akm-framing-")
  const hits = async (query: string) => (await runtime.runPromise(search({ query, track: false }))).hits
  beforeAll(async () => {
    fs.cpSync(FIXTURES, library, { recursive: true })
    await mount()
  }, 60_000)
  afterAll(dispose)

  it("ranks the answer above the decoy that holds only the framing word the answer lacks", async () => {
    const refs = (await hits("what should I call a new table in the database")).map((h) => h.ref)
    expect(refs[0]).toBe("library//knowledge/database-naming")
    expect(refs.indexOf("library//skills/database-migrations")).toBeGreaterThan(0)
  })

  it("a framing word does not find an item on its own: the item holding only \"see\" ranks under the answer", async () => {
    const refs = (await hits("users still see old css after the deploy")).map((h) => h.ref)
    expect(refs.indexOf("library//commands/cache-clear")).toBeLessThan(refs.indexOf("library//scripts/find-large-files.sh") === -1 ? Infinity : refs.indexOf("library//scripts/find-large-files.sh"))
  })

  it("asked alone, a framing word is still searched for", async () => {
    expect((await hits("new")).length).toBeGreaterThan(0)
  })
})
