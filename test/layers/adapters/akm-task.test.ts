import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { akmTaskAdapter, makeAkmTaskAdapter } from "../../../src/layers/adapters/akm-task/index.js"
import { akmTaskRules } from "../../../src/layers/adapters/akm-task/rules.js"
import { scheduleProblem } from "../../../src/layers/adapters/akm-task/schedule.js"
import { describeFireTimes, nextFireTimes } from "../../../src/domain/CronSchedule.js"
import { readTask } from "../../../src/layers/adapters/akm-task/taskDefinition.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}akm-task`
const probe = (tree: Tree): boolean => Effect.runSync(akmTaskAdapter.probe(probeContextFromTree(tree)))
const messages = (text: string) => readTask(text).findings.map((f) => `${f.check}: ${f.message}`)

describe("akm-task adapter: golden root", () => {
  const scan = scanDir(akmTaskAdapter, fixture)

  it("indexes every task file; id = path without .yml/.yaml", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["broken-backup", "task", "broken backup"],
      ["cleanup-caches", "task", "cleanup caches"],
      ["nightly-report", "task", "Nightly CI report"],
      ["weekly-digest", "task", "weekly digest"]
    ])
  })

  it("projects schedule, target, params and env key names; a prompt is content", () => {
    const nightly = scan.items.find((i) => i.conceptId === "nightly-report")!.projection
    expect(nightly).toEqual({
      name: "Nightly CI report",
      type: "task",
      description: "Summarise yesterday's failed CI runs for the morning stand-up",
      tags: ["ci", "reporting"],
      hints: ["0 6 * * 1-5", "platform//workflows/ci-triage", "branch", "GITHUB_TOKEN"],
      extra: { schedule: "0 6 * * 1-5", target: "workflow", enabled: false }
    })
    const digest = scan.items.find((i) => i.conceptId === "weekly-digest")!.projection
    expect(digest.content).toMatch(/^Read the pull requests merged/)
    expect(scan.items.find((i) => i.conceptId === "cleanup-caches")!.projection.hints).toEqual(["30 3 * * SUN", "bash scripts/prune-caches.sh --older-than 14d"])
  })

  it("reports the broken task with precise messages and lines", () => {
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.line, d.message])).toEqual([
      ["invalid-task-yaml", "error", "broken-backup.yml", 1, "version must be 2, found 1"],
      ["invalid-schedule", "error", "broken-backup.yml", 3, "schedule '0 25 * * *': field 2 (hour): 25 is outside 0–23"],
      ["invalid-task-yaml", "error", "broken-backup.yml", 4, "a task runs exactly one of workflow, prompt or command; found prompt and command"],
      ["dangerous-env-key", "warning", "broken-backup.yml", 6, "LD_LIBRARY_PATH changes how programs load or run; `akm env run` refuses it for bundles from git, npm or website sources"],
      ["invalid-task-yaml", "error", "broken-backup.yml", 7, "enabled must be true or false (it is advisory: enabling is `akm task enable`)"]
    ])
  })

  it("is deterministic (R-AD-2)", () => {
    expect(scanDir(akmTaskAdapter, fixture)).toEqual(scan)
  })

  it("is picked by the ordered selection, and its probe stays false elsewhere (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(treeFromDir(fixture)))).id).toBe("akm-task")
    expect(probe(treeFromDir(`${fixtures}akm-workflow`))).toBe(false)
    expect(probe({ "docker-compose.yml": "services: {}\n" })).toBe(false)
    expect(probe({ "a.yml": "schedule: ''\n" })).toBe(false)
    expect(probe({ "jobs/a.yml": "schedule: '@daily'\n" })).toBe(false)
  })
})

describe("akm-task: the definition checks", () => {
  const valid = "version: 2\nschedule: '@daily'\ncommand: make report\n"

  it("a minimal task is valid", () => {
    expect(messages(valid)).toEqual([])
  })

  it("requires version 2, a schedule and exactly one target", () => {
    expect(messages("schedule: '@daily'\nprompt: hi\n")).toEqual(["invalid-task-yaml: version is missing; write `version: 2`"])
    expect(messages("version: 2\ncommand: x\n")).toEqual(["invalid-task-yaml: schedule is missing; write a cron expression (`0 6 * * 1-5`) or a macro (`@daily`)"])
    expect(messages("version: 2\nschedule: '@daily'\n")).toEqual(["invalid-task-yaml: a task runs exactly one of workflow, prompt or command; none is set"])
    expect(messages("version: 2\nschedule: 5\ncommand: x\n")).toEqual(["invalid-task-yaml: schedule must be a string; quote cron expressions"])
  })

  it("checks the shapes of the optional fields", () => {
    expect(messages(`${valid}params: [a]\n`)).toEqual(["invalid-task-yaml: params must be a mapping of parameter name to value"])
    expect(messages(`${valid}timeout: soon\n`)).toEqual(["invalid-task-yaml: timeout must be a positive number of seconds or a duration such as 30s, 5m or 1h30m"])
    expect(messages(`${valid}timeout: 1h30m\n`)).toEqual([])
    expect(messages(`${valid}env: {TOKEN: abc}\n`)).toEqual(["invalid-task-yaml: env lists key names (e.g. [API_TOKEN]); values are bound locally with `akm bind --env`, never written here"])
    expect(messages(`${valid}env: [GOOD, "bad key"]\n`)).toEqual(["invalid-task-yaml: env entry \"bad key\" is not a key name"])
    expect(messages("version: 2\nschedule: '@daily'\ncommand: []\n")).toEqual(["invalid-task-yaml: command as a list is an argv: non-empty strings, at least one"])
    expect(messages("version: 2\nschedule: '@daily'\nworkflow: ../x\n")).toEqual(["invalid-task-yaml: workflow '../x' is not a ref (write bundle//path/to/workflow or path/to/workflow)"])
  })

  it("reports YAML that does not parse, and YAML that is not a mapping", () => {
    expect(readTask("version: [2\n").findings[0]).toMatchObject({ check: "invalid-task-yaml", line: 2 })
    expect(messages("- a\n- b\n")).toEqual(["invalid-task-yaml: a task is a YAML mapping with version, schedule and one of workflow, prompt or command"])
  })

  it("validates cron expressions field by field and knows the macros", () => {
    for (const ok of ["* * * * *", "*/15 9-17 * * MON-FRI", "0 0 1,15 * *", "0 12 * JAN,jul 0", "0 0 * * 7", "@hourly", "@reboot", "@annually", "5 4 * * sun"]) {
      expect(scheduleProblem(ok), ok).toBeUndefined()
    }
    expect(scheduleProblem("* * * *")).toBe("expected 5 cron fields (minute hour day-of-month month day-of-week) or a macro such as @daily; found 4")
    expect(scheduleProblem("60 * * * *")).toBe("field 1 (minute): 60 is outside 0–59")
    expect(scheduleProblem("0 0 0 * *")).toBe("field 3 (day of month): 0 is outside 1–31")
    expect(scheduleProblem("0 0 * 13 *")).toBe("field 4 (month): 13 is outside 1–12")
    expect(scheduleProblem("0 0 * * 8")).toBe("field 5 (day of week): 8 is outside 0–7")
    expect(scheduleProblem("*/0 * * * *")).toBe("field 1 (minute): Syntax error, illegal stepping: 0")
    expect(scheduleProblem("5-1 * * * *")).toBe("field 1 (minute): From value is larger than to value: '5-1'")
    // croner accepts these; crontab(5) does not, so neither does akm.
    expect(scheduleProblem("0 0 L * *")).toBe("field 3 (day of month): 'L' is not a number")
    expect(scheduleProblem("0 0 * * 1#2")).toBe("field 5 (day of week): '1#2' is not a number or a name (SUN–SAT)")
    expect(scheduleProblem("0 0 0 0 * *")).toMatch(/^expected 5 cron fields/)
    expect(scheduleProblem("0 0 30 2 *")).toBe("no date matches it (e.g. 30 February); it would never run")
    expect(scheduleProblem("0 0 * * FUNDAY")).toBe("field 5 (day of week): 'FUNDAY' is not a number or a name (SUN–SAT)")
    expect(scheduleProblem("0 0 ? * *")).toBe("field 3 (day of month): '?' is not a number")
    expect(scheduleProblem("@fortnightly")).toMatch(/^unknown macro '@fortnightly'/)
  })

  it("lint fires on a bad schedule and stays silent on good ones", () => {
    const lint = (schedule: string) => codes(scanTree(akmTaskAdapter, { "t.yml": `version: 2\nschedule: "${schedule}"\ncommand: [echo, hi]\n` }).diagnostics)
    for (const bad of ["61 * * * *", "0 0 * * 1#2", "@fortnightly", "0 0 30 2 *"]) expect(lint(bad), bad).toEqual(["invalid-schedule"])
    for (const good of ["0 3 * * *", "@reboot", "*/5 * * * MON-FRI"]) expect(lint(good), good).toEqual([])
  })

  it("knows the next fire times; @reboot fires at boot", () => {
    const from = new Date(2026, 0, 1, 12, 0)
    expect(nextFireTimes("0 3 * * *", from)).toEqual([new Date(2026, 0, 2, 3, 0), new Date(2026, 0, 3, 3, 0), new Date(2026, 0, 4, 3, 0)])
    expect(nextFireTimes("@monthly", from)).toEqual([new Date(2026, 1, 1), new Date(2026, 2, 1), new Date(2026, 3, 1)])
    // Vixie cron: a day matches when day-of-month OR day-of-week does.
    expect(nextFireTimes("0 0 13 * FRI", from, 2)).toEqual([new Date(2026, 0, 2), new Date(2026, 0, 9)])
    expect(describeFireTimes(nextFireTimes("@reboot", from))).toEqual(["at boot"])
    expect(nextFireTimes("nonsense", from)).toEqual([])
  })

  it("never runs anything: reading a task is pure (R-RT-1)", () => {
    const scan = scanTree(akmTaskAdapter, { "rm.yml": "version: 2\nschedule: '* * * * *'\ncommand: [rm, -rf, /]\n" })
    expect(scan.diagnostics).toEqual([])
    expect(scan.items[0]!.projection.extra).toEqual({ schedule: "* * * * *", target: "command" })
  })

  it("x.yml and x.yaml collide; .yml wins", () => {
    const scan = scanTree(akmTaskAdapter, { "a.yaml": valid, "a.yml": valid })
    expect(scan.items.map((i) => i.files)).toEqual([["a.yml"]])
    expect(codes(scan.diagnostics)).toEqual(["duplicate-concept-id"])
  })
})

describe("akm-task: one rule table (R-AD-3)", () => {
  const tree = { "a.yml": "version: 2\nschedule: '61 * * * *'\ncommand: x\n" }
  const context = (adapter: typeof akmTaskAdapter) => Effect.runSync(adapter.authoringContext!({ name: "t", root: "/", writable: true }, "task", "create"))

  it("removing a row stops enforcing it and stops teaching it", () => {
    const without = makeAkmTaskAdapter(akmTaskRules.filter((r) => r.code !== "invalid-schedule"))
    expect(codes(scanTree(akmTaskAdapter, tree).diagnostics)).toEqual(["invalid-schedule"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    expect(context(akmTaskAdapter).instructions).toContain("`invalid-schedule` (error)")
    expect(context(without).instructions).not.toContain("invalid-schedule")
  })

  it("changing a severity changes both, and the hash; identical tables hash identically (R-AD-2)", () => {
    const softer = makeAkmTaskAdapter(akmTaskRules.map((r) => (r.code === "invalid-schedule" ? { ...r, severity: "warning" as const } : r)))
    expect(scanTree(softer, tree).diagnostics.map((d) => d.severity)).toEqual(["warning"])
    expect(context(softer).instructions).toContain("`invalid-schedule` (warning)")
    expect(context(softer).ruleHash).not.toBe(context(akmTaskAdapter).ruleHash)
    expect(context(makeAkmTaskAdapter(akmTaskRules)).ruleHash).toBe(context(akmTaskAdapter).ruleHash)
  })
})

describe("akm-task: authoring", () => {
  const create = (request: CreateRequest, tree: Tree = {}) => Effect.runSync(Effect.either(akmTaskAdapter.create!(request, contextFromTree(tree, { name: "ops" }))))

  it("renders a valid task definition from the request", () => {
    const result = create({ title: "Nightly report", description: "Summarise CI", body: "", fields: { schedule: "0 6 * * *", workflow: "workflows/report", env: ["GITHUB_TOKEN"], timeout: "10m" } })
    expect(Either.isRight(result)).toBe(true)
    const [change] = Either.getOrThrow(result)
    expect(change).toEqual({
      bundle: "ops",
      path: "nightly-report.yml",
      beforeHash: null,
      after: "version: 2\ndescription: Summarise CI\nschedule: 0 6 * * *\nworkflow: workflows/report\ntimeout: 10m\nenv:\n  - GITHUB_TOKEN\n"
    })
    expect(scanTree(akmTaskAdapter, { "nightly-report.yml": change!.after as string }).diagnostics).toEqual([])
  })

  it("a body without a target becomes the prompt", () => {
    const [change] = Either.getOrThrow(create({ title: "Digest", body: "Write the weekly digest.", fields: { schedule: "@weekly" } }))
    expect(readTask(change!.after as string).target).toEqual({ kind: "prompt", value: "Write the weekly digest." })
  })

  it("refuses an invalid task, an existing target and a bad id", () => {
    const invalid = create({ title: "x", body: "", fields: { schedule: "0 99 * * *", command: "x" } })
    expect(Either.isLeft(invalid) && invalid.left.reason).toMatch(/field 2 \(hour\): 99 is outside 0–23/)
    const taken = create({ title: "a", body: "p", fields: { schedule: "@daily" } }, { "a.yaml": "" })
    expect(Either.isLeft(taken) && taken.left.reason).toBe("a already exists")
    const bad = create({ title: "x", conceptId: "../x", body: "p", fields: { schedule: "@daily" } })
    expect(Either.isLeft(bad)).toBe(true)
  })
})
