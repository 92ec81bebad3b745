import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { agentSkillsRules } from "../../../src/layers/adapters/agent-skills/rules.js"
import { agentSkillsAdapter, makeAgentSkillsAdapter } from "../../../src/layers/adapters/agent-skills/index.js"
import { claudeAdapter } from "../../../src/layers/adapters/claude/index.js"
import { opencodeAdapter } from "../../../src/layers/adapters/opencode/index.js"
import { claudeRules } from "../../../src/layers/adapters/claude/rules.js"
import { scanMarkdown } from "../../../src/layers/adapters/core/Markdown.js"
import { makeRuleBook, type RuleRow } from "../../../src/layers/adapters/core/RuleBook.js"
import {
  approximateTokens, checkSkillMd, commandParameters, fileSetOf, parseSkillMd, skillFileReferences, skillMdRules, skillNameFromTitle
} from "../../../src/layers/adapters/skill-md/index.js"
import { codes, scanTree } from "../../support/adapterHarness.js"

/**
 * The SKILL.md codec on its own cases, one or more per rule (the corpus
 * conformance suite compares it with skills-ref; this one runs in npm test).
 */
const agentSkills = makeRuleBook(agentSkillsRules)
const claude = makeRuleBook(claudeRules)

const skill = (frontmatter: string, body = "# Skill\n\nUse when testing.\n"): string => `---\n${frontmatter}\n---\n${body}`
const check = (dirName: string, text: string, book = agentSkills) => checkSkillMd({ path: `${dirName}/SKILL.md`, dirName, text, book })
const found = (dirName: string, text: string, book = agentSkills) => check(dirName, text, book).diagnostics.map((d) => `${d.severity}:${d.code}`)
const GOOD = "description: Extracts text from PDFs. Use when the user has a PDF."

describe("SKILL.md codec: the issue's done-when cases", () => {
  it("a SKILL.md named Bad_Name is an invalid-name error", () => {
    const diagnostics = check("Bad_Name", skill(`name: Bad_Name\n${GOOD}`)).diagnostics
    expect(diagnostics.filter((d) => d.code === "invalid-name").map((d) => d.severity)).toEqual(["error", "error"])
    expect(diagnostics.find((d) => d.code === "invalid-name")?.line).toBe(2)
  })

  it("a 1,100-character description is a description-too-long error", () => {
    const description = `Use when testing. ${"x".repeat(1100 - 18)}`
    expect(description).toHaveLength(1100)
    const diagnostics = check("long", skill(`name: long\ndescription: ${description}`)).diagnostics
    expect(diagnostics.map((d) => `${d.severity}:${d.code}`)).toEqual(["error:description-too-long"])
    expect(diagnostics[0]!.message).toContain("1100")
  })

  it("a description of exactly 1,024 characters passes", () => {
    expect(found("ok", skill(`name: ok\ndescription: Use when ${"y".repeat(1024 - 9)}`))).toEqual([])
  })
})

describe("SKILL.md codec: one case per rule", () => {
  it("missing-frontmatter: no opening ---", () => {
    expect(found("s", "# Skill\nNo frontmatter\n")).toEqual(["error:missing-frontmatter"])
  })

  it.each([
    ["unclosed", "---\nname: s\ndescription: d\n"],
    ["invalid YAML", "---\nname: [invalid\ndescription: broken\n---\nBody\n"],
    ["a list", "---\n- a\n- b\n---\nBody\n"]
  ])("invalid-frontmatter: %s (and nothing else is checked)", (_label, text) => {
    expect(found("s", text)).toEqual(["error:invalid-frontmatter"])
  })

  it("unexpected-field: an error in an Agent Skills bundle, one per key, sorted, with lines", () => {
    const diagnostics = check("s", skill(`name: s\n${GOOD}\nversion: 1\nauthor: me`)).diagnostics
    expect(diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["unexpected-field", "error", 5], ["unexpected-field", "error", 4]])
    expect(diagnostics[0]!.message).toContain("`author`")
  })

  it("unexpected-field: Claude Code's keys are allowed in a claude bundle and other keys only warn", () => {
    const text = skill(`name: s\n${GOOD}\nmodel: sonnet\nuser-invocable: true\nwhen_to_use: When testing\nversion: 2`)
    expect(found("s", text, agentSkills)).toEqual(["error:unexpected-field", "error:unexpected-field", "error:unexpected-field", "error:unexpected-field"])
    expect(found("s", text, claude)).toEqual(["warning:unexpected-field"])
  })

  it("missing-name: absent or empty", () => {
    expect(found("s", skill(GOOD))).toEqual(["error:missing-name"])
    expect(found("s", skill(`name: ""\n${GOOD}`))).toEqual(["error:missing-name"])
  })

  it.each([
    ["too long", "a".repeat(65), 1],
    ["uppercase", "MySkill", 1],
    ["leading hyphen", "-my-skill", 1],
    ["trailing hyphen", "my-skill-", 1],
    ["consecutive hyphens", "my--skill", 1],
    ["underscore", "my_skill", 1],
    ["dot", "my.skill", 1],
    ["Cyrillic uppercase", "НАВЫК", 1],
    ["uppercase and underscore", "My_Skill", 2]
  ])("invalid-name: %s", (_label, name, count) => {
    expect(found(name, skill(`name: ${name}\n${GOOD}`))).toEqual(Array.from({ length: count }, () => "error:invalid-name"))
  })

  it.each([["64 characters", "a".repeat(64)], ["digits", "pdf2text-v2"], ["Chinese", "技能"], ["Russian with hyphen", "мой-навык"]])("a valid name: %s", (_label, name) => {
    expect(found(name, skill(`name: ${name}\n${GOOD}`))).toEqual([])
  })

  it("a name is trimmed and NFKC-normalised, like the directory name it is compared with", () => {
    expect(found("my-skill", skill(`name: "  my-skill  "\n${GOOD}`))).toEqual([])
    expect(found("café", skill(`name: cafe\u0301\n${GOOD}`))).toEqual([])
  })

  it("name-directory-mismatch carries no fix that renames the skill after its directory (issue 15 item 8)", () => {
    const text = skill(`name: correct-name\n${GOOD}\nlicense: MIT # keep me`)
    const result = checkSkillMd({ path: "wrong-name/SKILL.md", dirName: "wrong-name", text, book: agentSkills, bundle: "team" })
    expect(result.diagnostics.map((d) => d.code)).toEqual(["name-directory-mismatch"])
    // The folder rename is built where the skill's files are known (skillDirectory.ts), for review only.
    expect(result.diagnostics[0]!.fix).toBeUndefined()
  })

  it("missing-description: absent, empty or blank", () => {
    expect(found("s", skill("name: s"))).toEqual(["error:missing-description"])
    expect(found("s", skill('name: s\ndescription: ""'))).toEqual(["error:missing-description"])
    expect(found("s", skill("name: s\ndescription:"))).toEqual(["error:missing-description"])
  })

  it("compatibility-too-long: over 500 characters, or not a string; empty is accepted as skills-ref does", () => {
    expect(found("s", skill(`name: s\n${GOOD}\ncompatibility: ${"x".repeat(501)}`))).toEqual(["error:compatibility-too-long"])
    expect(found("s", skill(`name: s\n${GOOD}\ncompatibility:\n  - a`))).toEqual(["error:compatibility-too-long"])
    expect(found("s", skill(`name: s\n${GOOD}\ncompatibility: ""`))).toEqual([])
    expect(found("s", skill(`name: s\n${GOOD}\ncompatibility: ${"x".repeat(500)}`))).toEqual([])
  })

  it("invalid-metadata: not a mapping, or nested values; scalars are read as strings", () => {
    expect(found("s", skill(`name: s\n${GOOD}\nmetadata: just text`))).toEqual(["error:invalid-metadata"])
    expect(found("s", skill(`name: s\n${GOOD}\nmetadata:\n  nested:\n    a: b`))).toEqual(["error:invalid-metadata"])
    const ok = check("s", skill(`name: s\n${GOOD}\nmetadata:\n  version: 1.0\n  internal: true`))
    expect(ok.diagnostics).toEqual([])
    expect(ok.properties.metadata).toEqual({ version: "1.0", internal: "true" })
  })

  it("body-too-long: over 500 lines or about 5,000 tokens (characters / 4)", () => {
    expect(found("s", skill(`name: s\n${GOOD}`, "line\n".repeat(501)))).toEqual(["warning:body-too-long"])
    expect(found("s", skill(`name: s\n${GOOD}`, "line\n".repeat(500)))).toEqual([])
    expect(found("s", skill(`name: s\n${GOOD}`, `${"w".repeat(20_001)}\n`))).toEqual(["warning:body-too-long"])
    expect(approximateTokens("abcde")).toBe(2)
  })

  it("missing-when-to-use: a description without a when-to-use phrase warns; Claude's when_to_use key counts", () => {
    expect(found("s", skill("name: s\ndescription: Extracts text from PDFs."))).toEqual(["warning:missing-when-to-use"])
    expect(found("s", skill("name: s\ndescription: Extracts text from PDFs. USE WHEN the user has one."))).toEqual([])
    expect(found("s", skill("name: s\ndescription: Extracts text from PDFs.\nwhen_to_use: PDFs", "body\n"), claude)).toEqual([])
  })

  it("name-reserved-word and name-xml-tag: warnings beside the name checks", () => {
    expect(found("claude-helper", skill(`name: claude-helper\n${GOOD}`))).toEqual(["warning:name-reserved-word"])
    expect(found("anthropic-claude", skill(`name: anthropic-claude\n${GOOD}`))).toEqual(["warning:name-reserved-word"])
    expect(found("<b>x</b>", skill(`name: <b>x</b>\n${GOOD}`))).toEqual(["error:invalid-name", "warning:name-xml-tag"])
  })

  it("reports in the reference validator's order: keys, name, directory, description, compatibility, then akm's warnings", () => {
    const text = skill(`compatibility: ${"x".repeat(501)}\ndescription: ${"d".repeat(1025)}\nname: Claude_X\nextra: 1`, "line\n".repeat(501))
    expect(check("other", text).diagnostics.map((d) => d.code)).toEqual([
      "unexpected-field", "invalid-name", "invalid-name", "name-directory-mismatch", "description-too-long", "compatibility-too-long",
      "body-too-long", "missing-when-to-use", "name-reserved-word"
    ])
  })
})

describe("SKILL.md parsing", () => {
  it("reads every scalar as a string, as skills-ref's strictyaml does", () => {
    const parsed = parseSkillMd(skill("name: s\ndescription: d\nmetadata:\n  version: 1.0\n  count: 3"))
    expect(parsed.fields).toEqual({ name: "s", description: "d", metadata: { version: "1.0", count: "3" } })
    expect(parsed.bodyLine).toBe(8)
  })

  it("keeps the body after the closing line; CRLF and a BOM are accepted", () => {
    const parsed = parseSkillMd("\uFEFF---\r\nname: s\r\ndescription: d\r\n---\r\n# Title\r\n")
    expect(parsed.problem).toBeUndefined()
    expect(parsed.body).toBe("# Title\n")
  })
})

describe("file references inside a skill", () => {
  const files = fileSetOf(["s/SKILL.md", "s/references/forms.md", "s/scripts/run.py", "s/assets/logo.png", "other/SKILL.md"])
  const refs = (body: string) => {
    const scan = scanMarkdown(body)
    return skillFileReferences({
      docPath: "s/SKILL.md",
      skillDir: "s",
      links: scan.links,
      codeSpans: scan.codeSpans,
      files,
      skillFiles: ["s/references/forms.md", "s/scripts/run.py", "s/assets/logo.png"]
    }).map((r) => `${r.path}:${r.exists}:${r.line}`)
  }

  it("resolves relative links against the document and ignores external ones", () => {
    expect(refs("[forms](references/forms.md#top) [x](https://example.com) [y](#here) [o](../other/SKILL.md)\n[gone](references/gone.md)")).toEqual([
      "s/references/forms.md:true:1",
      "other/SKILL.md:true:1",
      "s/references/gone.md:false:2"
    ])
  })

  it("checks code spans naming a file under one of the skill's directories, or a shipped asset by name", () => {
    expect(refs("Run `scripts/run.py`, then `scripts/missing.py`.\n\nShow `logo.png` and `showcase.pdf`; write `feedback.json`; see `evals/evals.json`, `/tmp/x.html`, `https://x.io/a.md`.")).toEqual([
      "s/scripts/run.py:true:1",
      "s/scripts/missing.py:false:1",
      "s/assets/logo.png:true:3",
      "s/showcase.pdf:false:3"
    ])
  })

  it("code inside fences is not a reference", () => {
    expect(refs("```\nscripts/missing.py `scripts/missing.py`\n```\n")).toEqual([])
  })
})

describe("helpers", () => {
  it("command parameters: $ARGUMENTS first, then positions in order", () => {
    expect(commandParameters("Use $2 and $1, then $ARGUMENTS and $10; not $ARGUMENTSX or $0.")).toEqual(["$ARGUMENTS", "$1", "$2", "$10"])
  })

  it("a skill name from a title", () => {
    expect(skillNameFromTitle("PDF Forms & Fields!")).toBe("pdf-forms-fields")
  })
})

describe("R-AD-3: the rule table drives both what authors are told and what is enforced", () => {
  const longDescription = skill(`name: s\ndescription: Use when testing ${"x".repeat(1100)}`)
  const tree = { "s/SKILL.md": longDescription }
  const instructionsOf = (rules: ReadonlyArray<RuleRow>) =>
    Effect.runSync(makeAgentSkillsAdapter(rules).authoringContext!({ name: "b", root: "/r", writable: true }, "skill", "create"))

  it("removing a row removes it from the instructions and stops enforcing it", () => {
    const without = agentSkillsRules.filter((r) => r.code !== "description-too-long")
    expect(instructionsOf(agentSkillsRules).instructions).toContain("description-too-long")
    expect(instructionsOf(without).instructions).not.toContain("description-too-long")
    expect(codes(scanTree(makeAgentSkillsAdapter(agentSkillsRules), tree).diagnostics)).toContain("description-too-long")
    expect(codes(scanTree(makeAgentSkillsAdapter(without), tree).diagnostics)).not.toContain("description-too-long")
    expect(instructionsOf(without).ruleHash).not.toBe(instructionsOf(agentSkillsRules).ruleHash)
  })

  it("changing a row's severity or limit changes both", () => {
    const relaxed = agentSkillsRules.map((r) => (r.code === "description-too-long" ? { ...r, severity: "warning" as const, limits: { characters: 2000 } } : r))
    expect(instructionsOf(relaxed).instructions).toContain("`description-too-long` (warning)")
    expect(instructionsOf(relaxed).instructions).toContain("at most 2000 characters")
    expect(codes(scanTree(makeAgentSkillsAdapter(relaxed), tree).diagnostics)).not.toContain("description-too-long")
    const warned = agentSkillsRules.map((r) => (r.code === "description-too-long" ? { ...r, severity: "warning" as const } : r))
    expect(codes(scanTree(makeAgentSkillsAdapter(warned), tree).diagnostics, "warning")).toContain("description-too-long")
  })

  it("the host tables differ only where spec 03 says", () => {
    const severity = (rules: ReadonlyArray<RuleRow>, code: string) => rules.find((r) => r.code === code)?.severity
    expect(severity(skillMdRules("agent-skills"), "unexpected-field")).toBe("error")
    expect(severity(skillMdRules("claude"), "unexpected-field")).toBe("warning")
    expect(severity(skillMdRules("opencode"), "unexpected-field")).toBe("warning")
    expect(skillMdRules("claude").find((r) => r.code === "unexpected-field")?.terms).toContain("disable-model-invocation")
  })
})

describe("R-AD-5: odd input never crashes a scan", () => {
  const odd = [
    "\u0000binary",
    "---\n",
    "---\n---\n",
    "---\nname: &a [*a]\n---\n",
    "---\n? [a, b]\n: c\n1: 2\nname: 3\ndescription: 4\nmetadata: null\n---\n",
    "---\nname: !!binary aGVsbG8=\ndescription: !!str\n---\n",
    "---\nname:\n  - a\ndescription:\n  x: y\ncompatibility: 7\nallowed-tools: [1, 2]\n---\n",
    `---\nname: ${"-".repeat(200)}\ndescription: ${"é".repeat(2000)}\n---\n${"x".repeat(100_000)}`,
    `${"- ".repeat(500)}x\n`,
    "---\r\nname: crlf\r\ndescription: Use when CRLF.\r\n---\r\n[a](<b c.md>) [x](%zz) ![i]()\r\n"
  ]

  it.each(odd.map((text, i) => [i, text] as const))("variant %i in every kind of file of the three adapters", (_i, text) => {
    expect(scanTree(agentSkillsAdapter, { "s/SKILL.md": text, "s/references/r.md": text }).items).toHaveLength(2)
    const claudeTree = { "CLAUDE.md": text, ".claude/rules/r.md": text, "agents/a.md": text, "commands/c.md": text, "skills/s/SKILL.md": text, ".claude-plugin/plugin.json": text }
    expect(scanTree(claudeAdapter, claudeTree).items).toHaveLength(5)
    expect(scanTree(opencodeAdapter, { "AGENTS.md": text, "agent/a.md": text, "command/c.md": text, "skill/s/SKILL.md": text }).items).toHaveLength(4)
  })
})
