import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { agentSkillsAdapter } from "../../src/layers/adapters/agent-skills/index.js"
import { agentSkillsRules } from "../../src/layers/adapters/agent-skills/rules.js"
import { makeRuleBook } from "../../src/layers/adapters/core/RuleBook.js"
import { checkSkillMd, parseSkillMd, skillDirectoryProblem, skillProperties } from "../../src/layers/adapters/skill-md/index.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../support/adapterHarness.js"
import { Effect } from "effect"

/**
 * Spec 03 "agent-skills": the reference validator's verdicts win. Every case
 * of corpora/agent-skills/validator-cases.json (produced by running
 * skills-ref) gets the same valid/invalid verdict and the same rules from us,
 * and the six real skills from anthropics/skills lint without errors.
 * Read from ../shared (or $AKM_CORPORA) at run time; skipped when absent.
 */
const corpora = process.env.AKM_CORPORA ? resolve(process.env.AKM_CORPORA) : fileURLToPath(new URL("../../../shared", import.meta.url))
const corpus = resolve(corpora, "corpora", "agent-skills")
const present = existsSync(resolve(corpus, "validator-cases.json"))

interface ValidatorCase {
  readonly id: string
  readonly setup: "skill-dir" | "path-does-not-exist" | "path-is-a-file" | "empty-dir"
  readonly dirName: string
  readonly skillFile: string | null
  readonly content: string | null
  readonly expected: { readonly valid: boolean; readonly errors: ReadonlyArray<string> }
}

interface ParserCase {
  readonly id: string
  readonly function: "parse_frontmatter" | "read_properties"
  readonly dirName: string
  readonly skillFile: string | null
  readonly content: string | null
  readonly expected: {
    readonly ok: boolean
    readonly metadata?: Readonly<Record<string, unknown>>
    readonly body?: string
    readonly properties?: Readonly<Record<string, unknown>>
    readonly message?: string
    readonly messagePrefix?: string
  }
}

const cases = present
  ? (JSON.parse(readFileSync(resolve(corpus, "validator-cases.json"), "utf8")) as { validatorCases: ReadonlyArray<ValidatorCase>; parserCases: ReadonlyArray<ParserCase> })
  : { validatorCases: [], parserCases: [] }

/** skills-ref's messages (by a distinctive prefix or fragment) → our diagnostic codes: the one mapping table. */
const RULE_MAP: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Path does not exist/, "missing-skill-md"],
  [/^Not a directory/, "missing-skill-md"],
  [/^Missing required file: SKILL\.md/, "missing-skill-md"],
  [/SKILL\.md not found/, "missing-skill-md"],
  [/must start with YAML frontmatter/, "missing-frontmatter"],
  [/frontmatter not properly closed/, "invalid-frontmatter"],
  [/^Invalid YAML in frontmatter/, "invalid-frontmatter"],
  [/frontmatter must be a YAML mapping/, "invalid-frontmatter"],
  [/^Unexpected fields in frontmatter/, "unexpected-field"],
  [/^Missing required field in frontmatter: name/, "missing-name"],
  [/^Field 'name' must be a non-empty string/, "missing-name"],
  [/^Skill name .* exceeds \d+ character limit/, "invalid-name"],
  [/^Skill name .* must be lowercase/, "invalid-name"],
  [/^Skill name cannot start or end with a hyphen/, "invalid-name"],
  [/^Skill name cannot contain consecutive hyphens/, "invalid-name"],
  [/^Skill name .* contains invalid characters/, "invalid-name"],
  [/^Directory name .* must match skill name/, "name-directory-mismatch"],
  [/^Missing required field in frontmatter: description/, "missing-description"],
  [/^Field 'description' must be a non-empty string/, "missing-description"],
  [/^Description exceeds \d+ character limit/, "description-too-long"],
  [/^Field 'compatibility' must be a string/, "compatibility-too-long"],
  [/^Compatibility exceeds \d+ character limit/, "compatibility-too-long"]
]

const REFERENCE_CODES = new Set(RULE_MAP.map(([, code]) => code))

const ourCode = (message: string): string => {
  const hit = RULE_MAP.find(([pattern]) => pattern.test(message))
  if (hit === undefined) throw new Error(`no mapping for skills-ref message: ${message}`)
  return hit[1]
}

/** Codes in order of first appearance: skills-ref lists several unexpected keys in one message, we report one per key. */
const distinct = (list: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(list)]

const book = makeRuleBook(agentSkillsRules)

/** The tree a case describes; an empty directory cannot exist in a file list, so it is the same as no directory. */
const treeOf = (c: ValidatorCase): Tree =>
  c.setup === "skill-dir" ? { [`${c.dirName}/${c.skillFile}`]: c.content ?? "" } : c.setup === "path-is-a-file" ? { [c.dirName]: "test" } : {}

/** skills-ref `validate(dir)` through our codec, in its check order. */
const validateDirectory = (c: ValidatorCase): ReadonlyArray<{ code: string; severity: string; strict: string }> => {
  const tree = treeOf(c)
  const ctx = contextFromTree(tree)
  const problem = skillDirectoryProblem(c.dirName, ctx)
  const diagnostics = problem !== undefined
    ? book.report("missing-skill-md", c.dirName, problem)
    : checkSkillMd({ path: `${c.dirName}/${c.skillFile}`, dirName: c.dirName, text: c.content ?? "", book }).diagnostics
  return diagnostics.map((d) => ({ code: d.code, severity: d.severity, strict: agentSkillsRules.find((r) => r.code === d.code)?.strictSeverity ?? d.severity }))
}

describe.skipIf(!present)("agent-skills conformance: skills-ref validator cases", () => {
  it("covers every case of the corpus", () => {
    expect(cases.validatorCases.length).toBeGreaterThanOrEqual(39)
    expect(cases.parserCases.length).toBeGreaterThanOrEqual(12)
  })

  it.each(cases.validatorCases.map((c) => [c.id, c] as const))("%s: same verdict and rules", (_id, c) => {
    const found = validateDirectory(c)
    const expectedCodes = distinct(c.expected.errors.map(ourCode))
    const ourReferenceCodes = distinct(found.filter((d) => REFERENCE_CODES.has(d.code)).map((d) => d.code))
    expect(ourReferenceCodes).toEqual(expectedCodes)
    // The verdict: under --strict (missing-skill-md is a warning in a bundle, an error under --strict).
    expect(found.some((d) => d.strict === "error")).toBe(!c.expected.valid)
    // Every finding skills-ref makes is an error in an agent-skills bundle except the directory-level one.
    for (const d of found) if (REFERENCE_CODES.has(d.code) && d.code !== "missing-skill-md") expect(d.severity).toBe("error")
  })

  it.each(cases.validatorCases.filter((c) => c.setup === "skill-dir").map((c) => [c.id, c] as const))("%s: the adapter's scan gives the same verdict", (_id, c) => {
    const scan = scanTree(agentSkillsAdapter, treeOf(c))
    const errors = codes(scan.diagnostics, "error")
    expect(errors.length === 0).toBe(c.expected.valid)
    expect(new Set(errors)).toEqual(new Set(c.expected.errors.map(ourCode)))
    expect(scan.items.map((i) => i.conceptId)).toEqual([c.dirName.normalize("NFC")])
  })
})

describe.skipIf(!present)("agent-skills conformance: skills-ref parser cases", () => {
  it.each(cases.parserCases.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    if (c.content === null) {
      const problem = skillDirectoryProblem(c.dirName, contextFromTree({}))
      expect(problem).toBeDefined()
      expect(c.expected.ok).toBe(false)
      expect(ourCode(c.expected.message ?? "")).toBe("missing-skill-md")
      return
    }
    const parsed = parseSkillMd(c.content)
    if (c.function === "parse_frontmatter") {
      if (c.expected.ok) {
        expect(parsed.problem).toBeUndefined()
        expect(parsed.fields).toEqual(c.expected.metadata)
        expect(parsed.body.trim()).toBe(c.expected.body)
      } else {
        expect(parsed.problem?.code).toBe(ourCode(c.expected.message ?? c.expected.messagePrefix ?? ""))
      }
      return
    }
    // read_properties: the properties, or the first missing required field.
    const checked = checkSkillMd({ path: `${c.dirName}/${c.skillFile}`, dirName: c.dirName, text: c.content, book })
    if (c.expected.ok) {
      const props = checked.properties
      const asSkillsRef = {
        name: props.name,
        description: props.description,
        ...(props.license === undefined ? {} : { license: props.license }),
        ...(props.metadata === undefined ? {} : { metadata: props.metadata }),
        ...(props.allowedTools === undefined ? {} : { "allowed-tools": props.allowedTools })
      }
      expect(asSkillsRef).toEqual(c.expected.properties)
      expect(skillProperties(parsed.fields)).toEqual(props)
    } else {
      const code = ourCode(c.expected.message ?? "")
      expect(checked.diagnostics.map((d) => d.code)).toContain(code)
    }
  })
})

describe.skipIf(!present)("agent-skills conformance: the six real skills", () => {
  const skills = resolve(corpus, "skills")

  it("the probe picks the skills directory", () => {
    expect(Effect.runSync(agentSkillsAdapter.probe(probeContextFromTree(treeFromDir(skills))))).toBe(true)
  })

  it("every skill passes: no errors, every skill and its markdown files are items", () => {
    const scan = scanDir(agentSkillsAdapter, skills)
    expect(scan.diagnostics.filter((d) => d.severity === "error")).toEqual([])
    const skillIds = scan.items.filter((i) => i.projection.type === "skill").map((i) => i.conceptId)
    expect(skillIds).toEqual(["brand-guidelines", "internal-comms", "mcp-builder", "skill-creator", "theme-factory", "webapp-testing"])
    const references = scan.items.filter((i) => i.projection.type === "reference").map((i) => i.conceptId)
    expect(references).toContain("mcp-builder/reference/evaluation")
    expect(references).toContain("skill-creator/agents/grader")
    expect(references).toContain("skill-creator/references/schemas")
    expect(references).toContain("internal-comms/examples/faq-answers")
    expect(references.filter((id) => id.startsWith("theme-factory/themes/"))).toHaveLength(10)
    expect(references).toHaveLength(4 + 4 + 4 + 10)
  })

  it("theme-factory's missing theme-showcase.pdf is a dangling-link warning, not an error", () => {
    const scan = scanDir(agentSkillsAdapter, skills)
    const dangling = scan.diagnostics.filter((d) => d.code === "dangling-link")
    expect(dangling.length).toBeGreaterThan(0)
    expect(dangling.every((d) => d.severity === "warning")).toBe(true)
    expect(dangling.filter((d) => d.path === "theme-factory/SKILL.md").map((d) => d.line)).toEqual([23, 30])
    expect(dangling.every((d) => d.path.startsWith("theme-factory/"))).toBe(true)
  })

  it("mcp-builder links to its reference documents and they link back", () => {
    const scan = scanDir(agentSkillsAdapter, skills)
    const skill = scan.items.find((i) => i.conceptId === "mcp-builder")!
    expect(skill.projection.links).toEqual(expect.arrayContaining(["mcp-builder/reference/evaluation", "mcp-builder/reference/mcp_best_practices"]))
    expect(skill.projection.outline?.filter((h) => h.depth === 0).map((h) => h.text)).toEqual(expect.arrayContaining(["scripts/connections.py", "reference/evaluation.md", "LICENSE.txt"]))
    const reference = scan.items.find((i) => i.conceptId === "mcp-builder/reference/evaluation")!
    expect(reference.projection.links).toContain("mcp-builder")
  })
})
