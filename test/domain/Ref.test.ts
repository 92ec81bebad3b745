import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  BundleName,
  equals,
  findSection,
  headingSlug,
  looksLikeSource,
  normalize,
  parse,
  parseQualified,
  type Ref,
  resolveInContent,
  resolveShortRef,
  serialize,
  toStored,
  validateBundleName,
  validateConceptId
} from "../../src/domain/Ref.js"

const ok = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got ${JSON.stringify(either.left)}`)
  return either.right
}

const err = <A, E>(either: Either.Either<A, E>): E => {
  if (Either.isRight(either)) throw new Error(`expected Left, got ${JSON.stringify(either.right)}`)
  return either.left
}

// Characters chosen to stress the grammar: separators' neighbours, dots, colons, non-ASCII.
const idChar = fc.constantFrom("a", "Z", "0", "-", "_", ".", ":", " ", "~", "@", "é", "ß", "日", "本", "Ω", "🙂")
const bundleChar = fc.constantFrom("a", "Z", "0", "-", "_", "~", "@", "é", "日", "🙂")

const segment = fc.string({ unit: idChar, minLength: 1, maxLength: 6 })
  .filter((s) => s !== "." && s !== ".." && s.trim().length > 0)

const conceptId = fc.array(segment, { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join("/"))
  .filter((id) => !/^[A-Za-z]:/.test(id))

const bundle = fc.string({ unit: bundleChar, minLength: 1, maxLength: 12 })

const fragment = fc.string({ unit: fc.constantFrom("a", " ", "#", "/", "/", ".", "é", "日"), maxLength: 10 })

const validRef: fc.Arbitrary<Ref> = fc.record(
  { bundle, conceptId, fragment },
  { requiredKeys: ["conceptId"] }
)

describe("parse / serialize", () => {
  it("round-trips generated valid refs, with and without bundle and fragment", () => {
    fc.assert(fc.property(validRef, (ref) => {
      const text = serialize(ref)
      expect(ok(parse(text))).toEqual(ref)
      expect(serialize(ok(parse(text)))).toBe(text)
    }))
  })

  it("reproduces the normalised input for any string it accepts, and never throws", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (input) => {
      const parsed = parse(input)
      if (Either.isRight(parsed)) expect(serialize(parsed.right)).toBe(normalize(input))
    }))
  })

  it("parses the spec examples", () => {
    expect(ok(parse("notes//engineering/http-caching"))).toEqual({ bundle: "notes", conceptId: "engineering/http-caching" })
    expect(ok(parse("skills//pdf-processing"))).toEqual({ bundle: "skills", conceptId: "pdf-processing" })
    expect(ok(parse("notes//guide#authentication"))).toEqual({ bundle: "notes", conceptId: "guide", fragment: "authentication" })
    expect(ok(parse("guide"))).toEqual({ conceptId: "guide" })
  })

  it("splits at the first '#' and then at the first '//'", () => {
    expect(ok(parse("a//b#c#d//e"))).toEqual({ bundle: "a", conceptId: "b", fragment: "c#d//e" })
    expect(ok(parse("a#b//c"))).toEqual({ conceptId: "a", fragment: "b//c" })
    expect(ok(parse("notes//guide#"))).toEqual({ bundle: "notes", conceptId: "guide", fragment: "" })
  })

  it("keeps dots and colons that are not whole segments", () => {
    expect(ok(parse("notes//v1.2/.hidden/a..b"))).toEqual({ bundle: "notes", conceptId: "v1.2/.hidden/a..b" })
    expect(ok(parse("github:acme/kb"))).toEqual({ conceptId: "github:acme/kb" })
  })

  it("normalises backslashes to '/'", () => {
    expect(ok(parse("notes\\\\engineering\\http-caching"))).toEqual({ bundle: "notes", conceptId: "engineering/http-caching" })
  })

  it("normalises NFD input to NFC", () => {
    const nfd = "notes//cafe\u0301"
    expect(ok(parse(nfd)).conceptId).toBe("caf\u00e9")
    expect(equals(ok(parse(nfd)), ok(parse("notes//caf\u00e9")))).toBe(true)
  })

  it("compares byte-wise and case-sensitively", () => {
    expect(equals(ok(parse("notes//Guide")), ok(parse("notes//guide")))).toBe(false)
    expect(equals(ok(parse("Notes//guide")), ok(parse("notes//guide")))).toBe(false)
    expect(equals(ok(parse("notes//guide")), ok(parse("notes//guide")))).toBe(true)
  })
})

describe("parse rejections", () => {
  const reasonOf = (input: string) => err(parse(input)).reason

  it.each([
    ["", "ref is empty"],
    ["   ", "ref is blank"],
    ["notes//a\0b", "ref contains a NUL character"],
    ["/etc/passwd", "absolute paths are not refs"],
    ["//server/share", "absolute paths are not refs"],
    ["\\\\server\\share", "absolute paths are not refs"],
    ["C:", "'C:' looks like a Windows drive letter"],
    ["c:/x", "'c:' looks like a Windows drive letter"],
    ["C:\\Users\\me", "'C:' looks like a Windows drive letter"],
    ["notes//C:/x", "'C:' looks like a Windows drive letter"],
    ["notes//", "concept id is empty"],
    ["#intro", "concept id is empty"],
    ["notes//#intro", "concept id is empty"],
    ["notes//  ", "concept id is blank"],
    ["notes//a//b", "concept id has an empty segment (doubled or trailing '/')"],
    ["a/b/", "concept id has an empty segment (doubled or trailing '/')"],
    ["notes//a/ /b", "concept id has a blank segment"],
    ["notes//../secrets", "segment '..' is not allowed"],
    ["a/./b", "segment '.' is not allowed"],
    ["..", "segment '..' is not allowed"],
    ["my notes//a", "bundle 'my notes' is invalid: name contains whitespace"],
    ["my.notes//a", "bundle 'my.notes' is invalid: name contains '.'"]
  ])("rejects %j: %s", (input, reason) => {
    expect(reasonOf(input)).toBe(reason)
  })

  it("carries the input and a ref-shaped hint", () => {
    const error = err(parse("notes//../x"))
    expect(error._tag).toBe("RefInvalid")
    expect(error.input).toBe("notes//../x")
    expect(error.hint).toBe("refs look like bundle//path/to/item or path/to/item")
    expect(error.message).toBe("invalid ref 'notes//../x': segment '..' is not allowed")
  })

  it.each([
    "./notes", "../kb", "/home/me/notes", "https://github.com/acme/kb.git", "http://docs.example.com/",
    "file:///tmp/kb", "website:https://docs.example.com/", "C:\\kb"
  ])("points source-like input %j at `akm bundle add`", (input) => {
    expect(err(parse(input)).hint).toBe("this looks like a bundle source; use `akm bundle add <source>`")
  })

  it("rejects any concept id with a '.' or '..' segment", () => {
    fc.assert(fc.property(
      fc.array(segment, { maxLength: 3 }), fc.constantFrom(".", ".."), fc.array(segment, { maxLength: 3 }), fc.option(bundle),
      (before, dots, after, b) => {
        const id = [...before, dots, ...after].join("/")
        expect(Either.isLeft(parse(b === null ? id : `${b}//${id}`))).toBe(true)
      }
    ))
  })

  it("rejects absolute paths", () => {
    fc.assert(fc.property(fc.string(), (rest) => {
      expect(Either.isLeft(parse(`/${rest}`))).toBe(true)
      expect(Either.isLeft(parse(`\\${rest}`))).toBe(true)
    }))
  })

  it("rejects NUL anywhere", () => {
    fc.assert(fc.property(validRef, fc.nat(), (ref, at) => {
      const text = serialize(ref)
      const i = at % (text.length + 1)
      expect(Either.isLeft(parse(`${text.slice(0, i)}\0${text.slice(i)}`))).toBe(true)
    }))
  })

  it("rejects drive letters", () => {
    const letter = fc.constantFrom(..."ABCXYZabcxyz")
    fc.assert(fc.property(letter, fc.constantFrom("", "/", "\\"), conceptId, (d, sep, rest) => {
      expect(Either.isLeft(parse(`${d}:${sep}${rest}`))).toBe(true)
    }))
  })
})

describe("parseQualified / toStored", () => {
  it("requires a bundle", () => {
    expect(ok(parseQualified("notes//guide"))).toEqual({ bundle: "notes", conceptId: "guide" })
    const error = err(parseQualified("guide"))
    expect(error.reason).toBe("ref has no bundle")
    expect(error.hint).toBe("write it fully qualified, e.g. <bundle>//guide")
  })

  it("stores refs fully qualified and without fragment", () => {
    expect(toStored(ok(parseQualified("notes//guide#authentication")))).toBe("notes//guide")
  })
})

describe("normalize", () => {
  it("is idempotent, NFC and backslash-free", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (input) => {
      const once = normalize(input)
      expect(normalize(once)).toBe(once)
      expect(once.normalize("NFC")).toBe(once)
      expect(once.includes("\\")).toBe(false)
    }))
  })
})

describe("validateConceptId", () => {
  it("accepts every generated valid id", () => {
    fc.assert(fc.property(conceptId, (id) => {
      expect(ok(validateConceptId(id))).toBe(id)
    }))
  })

  it("rejects '#' and unnormalised ids that adapters might derive from file names", () => {
    expect(err(validateConceptId("notes/a#b")).reason).toBe("concept id contains '#'")
    expect(err(validateConceptId("a\\b")).reason).toBe("concept id is not normalised (backslash or non-NFC text)")
    expect(err(validateConceptId("cafe\u0301")).reason).toBe("concept id is not normalised (backslash or non-NFC text)")
  })
})

describe("bundle names", () => {
  it.each(["notes", "team-kb", "agent_skills", "日本語", "a", "x".repeat(64)])("accepts %j", (name) => {
    expect(ok(validateBundleName(name))).toBe(name)
    expect(Schema.decodeUnknownSync(BundleName)(name)).toBe(name)
  })

  it.each([
    ["", "name is empty"],
    ["my notes", "name contains whitespace"],
    ["tab\there", "name contains whitespace"],
    ["github:acme", "name contains ':'"],
    ["kb.git", "name contains '.'"],
    ["a#b", "name contains '#'"],
    ["a/b", "name contains '/'"],
    ["a\\b", "name contains '\\'"],
    ["a\0b", "name contains '\\0'"],
    ["x".repeat(65), "name is longer than 64 characters"]
  ])("rejects %j: %s", (name, reason) => {
    const error = err(validateBundleName(name))
    expect(error._tag).toBe("BundleNameInvalid")
    expect(error.name).toBe(name)
    expect(error.reason).toBe(reason)
    expect(error.hint).toContain("bundle names are 1-64 characters")
    expect(Either.isLeft(Schema.decodeUnknownEither(BundleName)(name))).toBe(true)
  })

  it("counts characters, not UTF-16 units", () => {
    expect(Either.isRight(validateBundleName("🙂".repeat(64)))).toBe(true)
  })

  it("reports the reason through the schema", () => {
    const result = Schema.decodeUnknownEither(BundleName)("kb.git")
    expect(Either.isLeft(result) && result.left.message).toContain("name contains '.'")
  })
})

describe("looksLikeSource", () => {
  it.each([
    "./x", "../x", "~/x", "/abs", "https://h/x", "HTTPS://h/x", "http://h", "file:///x", "git@github.com:a/b.git",
    "github:acme/kb", "npm:@acme/skills", "website:https://docs.example.com", ".\\x", "C:\\x", "."
  ])("is true for %j", (input) => {
    expect(looksLikeSource(input)).toBe(true)
  })

  it.each(["notes//guide", "guide", "engineering/http-caching", "~tilde"])("is false for %j", (input) => {
    expect(looksLikeSource(input)).toBe(false)
  })
})

describe("headingSlug / findSection", () => {
  it.each([
    ["Authentication & Tokens", "authentication-tokens"],
    ["  ## Leading punctuation!", "leading-punctuation"],
    ["認証 と トークン", "認証-と-トークン"],
    ["Ünïcödé Wörds", "ünïcödé-wörds"],
    ["Cafe\u0301", "caf\u00e9"],
    ["हिन्दी भाषा", "हिन्दी-भाषा"],
    ["snake_case and 2nd", "snake-case-and-2nd"],
    ["---", ""]
  ])("slugs %j as %j", (text, slug) => {
    expect(headingSlug(text)).toBe(slug)
  })

  it("slugs ASCII text exactly as the Unicode rule does (the ASCII fast path)", () => {
    const unicodeRule = (text: string) => text.normalize("NFC").toLowerCase().replace(/[^\p{L}\p{N}\p{M}]+/gu, "-").replace(/^-+|-+$/g, "")
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 40 }), (text) => headingSlug(text) === unicodeRule(text)), { numRuns: 2000 })
  })

  it("yields lowercase runs of letters and digits joined by single dashes", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => {
      expect(headingSlug(text)).toMatch(/^(?:[\p{L}\p{N}\p{M}]+(?:-[\p{L}\p{N}\p{M}]+)*)?$/u)
    }))
  })

  const headings = [
    { text: "Overview", depth: 1, line: 1 },
    { text: "Authentication & Tokens", depth: 2, line: 5 },
    { text: "C++ / Rust", depth: 2, line: 9 },
    { text: "Authentication & Tokens", depth: 3, line: 12 }
  ]

  it("matches by slug first, taking the first of duplicates", () => {
    expect(findSection(headings, "authentication-tokens")).toBe(headings[1])
  })

  it("falls back to case-insensitive heading text", () => {
    expect(findSection(headings, "c++ / rust")).toBe(headings[2])
    expect(findSection(headings, "AUTHENTICATION & TOKENS")).toBe(headings[1])
  })

  it("returns undefined on a miss or an empty fragment", () => {
    expect(findSection(headings, "missing")).toBeUndefined()
    expect(findSection([{ text: "!!!", depth: 1, line: 1 }], "")).toBeUndefined()
  })
})

describe("resolveShortRef", () => {
  const existing = new Set(["notes//guide", "team//guide", "team//runbook", "skills//runbook", "skills//pdf"])
  const context = {
    bundles: ["team", "skills", "notes"],
    defaultBundle: "notes",
    exists: (bundle: string, conceptId: string) => existing.has(`${bundle}//${conceptId}`)
  }

  it("prefers the default bundle", () => {
    expect(ok(resolveShortRef(ok(parse("guide#setup")), context))).toEqual({ bundle: "notes", conceptId: "guide", fragment: "setup" })
  })

  it("falls back to config order", () => {
    expect(ok(resolveShortRef(ok(parse("runbook")), context))).toEqual({ bundle: "team", conceptId: "runbook" })
    expect(ok(resolveShortRef(ok(parse("pdf")), context))).toEqual({ bundle: "skills", conceptId: "pdf" })
  })

  it("checks a qualified ref as written", () => {
    expect(ok(resolveShortRef(ok(parse("skills//runbook")), context))).toEqual({ bundle: "skills", conceptId: "runbook" })
    const error = err(resolveShortRef(ok(parse("notes//pdf")), context))
    expect(error.tried).toEqual(["notes//pdf"])
  })

  it("points at `akm bundle add` when a missing short ref is an install source (npm:, github:)", () => {
    for (const input of ["npm:@acme/kb", "github:acme/kb"]) {
      const parsed = parse(input)
      if (Either.isLeft(parsed)) continue
      expect(err(resolveShortRef(parsed.right, context)).hint).toContain("akm bundle add")
    }
  })

  it("names every form tried, default first, each once", () => {
    const error = err(resolveShortRef(ok(parse("missing#x")), context))
    expect(error._tag).toBe("RefNotFound")
    expect(error.input).toBe("missing#x")
    expect(error.tried).toEqual(["notes//missing", "team//missing", "skills//missing"])
    expect(error.hint).toContain("akm search")
  })

  it("works without a default bundle and says when there are no bundles", () => {
    const noDefault = { bundles: context.bundles, exists: context.exists }
    expect(ok(resolveShortRef(ok(parse("guide")), noDefault)).bundle).toBe("team")
    const error = err(resolveShortRef(ok(parse("guide")), { bundles: [], exists: () => true }))
    expect(error.tried).toEqual([])
    expect(error.hint).toContain("akm bundle add")
  })

  it("resolves short refs in content to the containing bundle", () => {
    expect(resolveInContent(ok(parse("guide#a")), "team")).toEqual({ bundle: "team", conceptId: "guide", fragment: "a" })
    expect(resolveInContent(ok(parse("notes//guide")), "team")).toEqual({ bundle: "notes", conceptId: "guide" })
  })
})
