import Database from "better-sqlite3"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseQuery, stem, tokenize } from "../../src/domain/Query.js"

/** Every word of the project's own markdown: docs, examples, fixtures — a few thousand real English and technical words. */
const corpusWords = (): ReadonlyArray<string> => {
  const words = new Set<string>()
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      if (entry.isDirectory()) visit(abs)
      else if (/\.(md|ts)$/.test(entry.name) && fs.statSync(abs).size < 200_000) for (const t of tokenize(fs.readFileSync(abs, "utf8"))) words.add(t)
    }
  }
  for (const dir of ["docs", "examples", "test/fixtures", "src/domain"]) visit(dir)
  return [...words]
}

/** What FTS5's porter tokenizer stores for each word. */
const fts5Stems = (words: ReadonlyArray<string>): ReadonlyMap<string, string> => {
  const db = new Database(":memory:")
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5 (w, tokenize = 'porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE v USING fts5vocab (t, 'row')")
    const insert = db.prepare("INSERT INTO t (rowid, w) VALUES (?, ?)")
    const stemOf = db.prepare("SELECT term FROM v")
    const out = new Map<string, string>()
    // One word per table state: the vocab then holds exactly that word's stem.
    for (const word of words) {
      db.exec("DELETE FROM t")
      insert.run(1, word)
      const rows = stemOf.all() as Array<{ term: string }>
      if (rows.length === 1) out.set(word, rows[0]!.term)
    }
    return out
  } finally {
    db.close()
  }
}

describe("tokenize", () => {
  it("splits like unicode61: letters and digits, everything else separates", () => {
    expect(tokenize("Docker-Homelab snake_case c++ what's v1.2")).toEqual(["docker", "homelab", "snake", "case", "c", "what", "s", "v1", "2"])
  })

  it("folds case, NFC/NFD and diacritics", () => {
    expect(tokenize("Café CAFE\u0301 naïve")).toEqual(["cafe", "cafe", "naive"])
  })
})

describe("stem", () => {
  it("agrees with FTS5's porter tokenizer on every word of the project's text", () => {
    const words = corpusWords()
    expect(words.length).toBeGreaterThan(2000)
    const expected = fts5Stems(words)
    const wrong = [...expected].filter(([word, s]) => stem(word) !== s).map(([word, s]) => `${word}: ${stem(word)} ≠ ${s}`)
    expect(wrong).toEqual([])
  })

  it("agrees with FTS5 on generated ASCII and non-ASCII words", () => {
    const letters = fc.constantFrom(..."abcdeilmnorstuyz", "é", "ø", "ж")
    fc.assert(
      fc.property(fc.array(fc.array(letters, { minLength: 1, maxLength: 14 }).map((l) => l.join("")), { minLength: 1, maxLength: 40 }), (raw) => {
        const words = [...new Set(raw.flatMap((w) => tokenize(w)))]
        for (const [word, s] of fts5Stems(words)) expect(stem(word), word).toBe(s)
      }),
      { numRuns: 100 }
    )
  })

  it("keeps short tokens", () => {
    expect(stem("is")).toBe("is")
    expect(stem("components")).toBe("compon")
    expect(stem("deployment")).toBe("deploy")
  })
})

describe("parseQuery", () => {
  const stems = (q: string) => {
    const parsed = parseQuery(q)
    return parsed._tag === "Words" ? parsed.groups.map((g) => g.stems.join(" ")) : parsed
  }

  it("drops stopwords unless the query is nothing else", () => {
    expect(stems("deploy docker compose services in my homelab")).toEqual(["deploi", "docker", "compos", "servic", "homelab"])
    expect(stems("the docker")).toEqual(["docker"])
    expect(stems("how release")).toEqual(["releas"])
    expect(stems("the")).toEqual(["the"])
    expect(stems("what is the")).toEqual(["what", "is", "the"])
  })

  it("drops the words a question frames itself with, unless the query is nothing else (decision 0056)", () => {
    // nl/naming-tables, nl/purge-cdn of the tuning half: "new", "still" and "see" name no subject.
    expect(stems("what should I call a new table in the database")).toEqual(["call", "tabl", "databas"])
    expect(stems("users still see old css after the deploy")).toEqual(["user", "old", "css", "deploi"])
    // Alone they are the query: "new" and "see" are still searchable.
    expect(stems("new")).toEqual(["new"])
    expect(stems("see also")).toEqual(["see", "also"])
    // "getting" and "keep" carry the subject (nl/too-many-requests, nl/rule-env-file): kept.
    expect(stems("clients are getting 429 errors")).toEqual(["client", "get", "429", "error"])
    expect(stems("keep secrets in a .env file")).toEqual(["keep", "secret", "env", "file"])
  })

  it("splits -/_ and counts a repeated word once", () => {
    expect(stems("docker-homelab docker_homelab")).toEqual(["docker", "homelab"])
    expect(stems("deploy deploys deploying")).toEqual(["deploi"])
  })

  it("keeps a quoted phrase as one group", () => {
    const parsed = parseQuery('"docker compose" homelab')
    expect(parsed).toMatchObject({ _tag: "Words", groups: [{ tokens: ["docker", "compose"], phrase: true }, { tokens: ["homelab"], phrase: false }] })
    // An unbalanced quote is just punctuation.
    expect(stems('"docker compose')).toEqual(["docker", "compos"])
  })

  it("keeps every word, stopwords included, for exact-name comparison", () => {
    expect(parseQuery("The Docker")).toMatchObject({ allStems: ["the", "docker"] })
  })

  it("recognises browse forms", () => {
    expect(parseQuery("")).toEqual({ _tag: "All" })
    expect(parseQuery("   ")).toEqual({ _tag: "All" })
    expect(parseQuery("skills/")).toEqual({ _tag: "Browse", prefix: "skills/" })
    expect(parseQuery("notes//")).toEqual({ _tag: "Browse", bundle: "notes", prefix: "" })
    expect(parseQuery("notes//ops/")).toEqual({ _tag: "Browse", bundle: "notes", prefix: "ops/" })
    expect(parseQuery("a b/")._tag).toBe("Words")
  })

  it("sends scripts without word spacing to substring search", () => {
    expect(parseQuery("検索エンジン 設定")).toEqual({ _tag: "Substring", segments: ["検索エンジン", "設定"] })
  })

  it("never throws and yields only word tokens", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (q) => {
        const parsed = parseQuery(q)
        if (parsed._tag === "Words") for (const g of parsed.groups) for (const t of g.tokens) expect(t).toMatch(/^[\p{L}\p{N}\p{Co}]+$/u)
      })
    )
  })
})
