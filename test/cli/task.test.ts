import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type CliResult } from "../support/cli.js"
import { readRows } from "../support/readDatabase.js"

/**
 * Runtime II, tasks (issue 20 item 3, spec 07 §3): `akm task add|enable|
 * disable|run|list|history` against `runtime.crontabFile`. A fake `crontab`
 * first on PATH records any call, so a test that reached for the user's
 * crontab would show (it must never be called).
 */

const workspace = makeWorkspace()
const crontab = join(workspace.root, "sched", "crontab")
const fakeBin = join(workspace.root, "fake-bin")
const fakeCalls = join(workspace.root, "fake-crontab-called")
const work = join(workspace.root, "work")
let bundle = ""

const akm = (args: ReadonlyArray<string>): Promise<CliResult> =>
  workspace.run([...args, "--format", "json"], { cwd: work, env: { PATH: `${fakeBin}${delimiter}${process.env.PATH ?? ""}` } })

const ok = async (args: ReadonlyArray<string>) => {
  const r = await akm(args)
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
  return r.json()
}

const crontabText = () => (existsSync(crontab) ? readFileSync(crontab, "utf8") : undefined)

beforeAll(async () => {
  mkdirSync(fakeBin, { recursive: true })
  writeFileSync(join(fakeBin, "crontab"), `#!/bin/sh\necho "$*" >> '${fakeCalls}'\nexit 1\n`)
  chmodSync(join(fakeBin, "crontab"), 0o755)
  mkdirSync(work, { recursive: true })
  bundle = join(workspace.root, "runtime-bundle")
  cpSync(join(repoRoot, "examples", "runtime"), bundle, { recursive: true })
  writeFileSync(join(bundle, "tasks", "mark.yml"), `version: 2\nschedule: "*/5 * * * *"\ncommand: [sh, -c, "echo ran >> ${join(work, "marks")}; exit 3"]\n`)
  // Adding the example bundle runs and schedules nothing (R-RT-1).
  const added = await akm(["bundle", "add", bundle, "--name", "runtime"])
  expect(added.code, added.stderr).toBe(0)
  // The agent a prompt task hands its prompt to (on stdin): here, a shell that keeps it.
  appendFileSync(join(workspace.configDir, "config.yaml"), `runtime:\n  crontabFile: ${crontab}\n  agentCommand: [sh, -c, "cat > ${join(work, "prompt-got")}"]\n`)
}, 120_000)

afterAll(() => {
  // Never the real crontab: the fake on PATH was not called by any test.
  expect(existsSync(fakeCalls)).toBe(false)
  workspace.cleanup()
})

describe("akm task (issue 20 done-when)", { timeout: 120_000 }, () => {
  it("adding examples/runtime scheduled nothing and ran nothing", async () => {
    expect(crontabText()).toBeUndefined()
    expect(existsSync(join(work, "marks"))).toBe(false)
    const list = await ok(["task", "list"])
    expect(list.tasks.map((t: { ref: string; status: string }) => [t.ref, t.status])).toEqual([["runtime//tasks/mark", "not enabled"], ["runtime//tasks/nightly", "not enabled"]])
  })

  it("enable creates a missing crontab file with exactly one marked entry; disable leaves the file byte-identical", async () => {
    const enabled = await ok(["task", "enable", "runtime//tasks/nightly"])
    expect(enabled).toMatchObject({ alias: "nightly", ref: "runtime//tasks/nightly", schedule: "0 3 * * *", changed: true })
    expect(enabled.next).toHaveLength(3)
    const text = crontabText()!
    expect(text.match(/^# BEGIN akm tasks /gm)).toHaveLength(1)
    const lines = text.split("\n").filter((line) => line !== "" && !line.startsWith("#"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(`0 3 * * * AKM_CONFIG_DIR=${workspace.configDir} AKM_DATA_DIR=${workspace.dataDir} AKM_CACHE_DIR=${workspace.cacheDir} ${process.execPath} ${join(repoRoot, "bin", "akm.js")} task run nightly --scheduled`)
    await ok(["task", "disable", "nightly"])
    expect(crontabText()).toBe("")
  })

  it("every other line stays byte-identical; enabling twice changes nothing", async () => {
    const before = "SHELL=/bin/sh\r\nMAILTO=\"\"\n# mine\n0 1 * * * echo 'keep %me'"
    writeFileSync(crontab, before)
    expect((await ok(["task", "enable", "nightly"])).changed).toBe(true)
    const once = crontabText()!
    expect(once.startsWith(before)).toBe(true)
    expect((await ok(["task", "enable", "nightly"])).changed).toBe(false)
    expect(crontabText()).toBe(once)
    await ok(["task", "enable", "runtime//tasks/mark"])
    expect(crontabText()!.match(/^# BEGIN akm tasks /gm)).toHaveLength(1)
    await ok(["task", "disable", "mark"])
    expect(crontabText()).toBe(once)
    await ok(["task", "disable", "nightly"])
    expect(crontabText()).toBe(before)
    expect((await ok(["task", "disable", "nightly"])).changed).toBe(false)
  })

  it("task run runs a command task now and records its history (exit status, duration)", async () => {
    const r = await akm(["task", "run", "runtime//tasks/mark"])
    expect(r.code).toBe(3)
    expect(r.json()).toMatchObject({ alias: "mark", status: "failed", exit: 3 })
    expect(readFileSync(join(work, "marks"), "utf8")).toBe("ran\n")
    const history = await ok(["task", "history", "mark"])
    expect(history.runs[0]).toMatchObject({ alias: "mark", exportRef: "runtime//tasks/mark", trigger: "manual", status: "failed", exit: 3 })
    expect(history.runs[0].durationMs).toBeGreaterThanOrEqual(0)
    const rows = readRows<{ status: string; exit: number }>(join(workspace.dataDir, "state.db"), "SELECT status, exit FROM task_runs")
    expect(rows).toEqual([{ status: "failed", exit: 3 }])
  })

  it("a bundle update never rewrites the active entry: update pending review until enable --update (R-RT-6)", async () => {
    const file = join(bundle, "tasks", "mark.yml")
    const original = readFileSync(file, "utf8")
    await ok(["task", "enable", "mark"])
    const entry = crontabText()!
    writeFileSync(file, original.replace("*/5 * * * *", "@hourly").replace("exit 3", "exit 0"))
    await ok(["index"])
    const list = await ok(["task", "list"])
    expect(list.tasks.find((t: { ref: string }) => t.ref === "runtime//tasks/mark")).toMatchObject({ status: "update pending review", schedule: "*/5 * * * *" })
    expect(crontabText()).toBe(entry)
    // A scheduled run still runs the approved definition.
    const scheduled = await akm(["task", "run", "mark", "--scheduled"])
    expect(scheduled.code).toBe(3)
    expect(scheduled.stderr).toMatch(/update pending review/)
    const updated = await ok(["task", "enable", "mark", "--update"])
    expect(updated).toMatchObject({ schedule: "@hourly", changed: true, pendingReview: false })
    expect(crontabText()).toMatch(/^@hourly .* task run mark --scheduled$/m)
    expect((await ok(["task", "list"])).tasks.find((t: { ref: string }) => t.ref === "runtime//tasks/mark").status).toBe("enabled")
    const history = await ok(["task", "history", "mark"])
    expect(history.runs[0]).toMatchObject({ trigger: "scheduled", exit: 3 })
    await ok(["task", "disable", "mark"])
    writeFileSync(file, original)
    await ok(["index"])
  })

  it("a prompt task hands its prompt to runtime.agentCommand on stdin; a timeout stops the task (exit 124)", async () => {
    writeFileSync(join(bundle, "tasks", "ask.yml"), "version: 2\nschedule: \"@weekly\"\nprompt: Summarise last week's incidents.\n")
    writeFileSync(join(bundle, "tasks", "slow.yml"), "version: 2\nschedule: \"@daily\"\ncommand: [sleep, \"30\"]\ntimeout: 1s\n")
    await ok(["index"])
    expect((await ok(["task", "run", "ask"])).exit).toBe(0)
    expect(readFileSync(join(work, "prompt-got"), "utf8")).toBe("Summarise last week's incidents.")
    const slow = await akm(["task", "run", "slow"])
    expect(slow.code).toBe(124)
    expect((await ok(["task", "history", "slow"])).runs[0]).toMatchObject({ status: "timeout", exit: 124 })
  })

  it("a scheduled run of a task disabled since is skipped", async () => {
    const r = await akm(["task", "run", "nightly", "--scheduled"])
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({ skipped: true })
  })

  it("task add writes tasks/<name>.yml through a proposal and schedules nothing; task run runs `akm …` as this akm", async () => {
    const added = await ok(["task", "add", "nightly-improve", "--schedule", "0 3 * * *", "--command", "akm improve --skip-if-locked", "--bundle", "runtime"])
    expect(added).toMatchObject({ status: "accepted", ref: "runtime//tasks/nightly-improve", schedule: "0 3 * * *" })
    expect(added.next).toHaveLength(3)
    expect(readFileSync(join(bundle, "tasks", "nightly-improve.yml"), "utf8")).toContain("command: akm improve --skip-if-locked")
    expect(crontabText()).toBe("SHELL=/bin/sh\r\nMAILTO=\"\"\n# mine\n0 1 * * * echo 'keep %me'")
    const proposals = await ok(["proposal", "list", "--status", "accepted"])
    expect(JSON.stringify(proposals)).toContain("Create task: nightly-improve")
    // `akm improve` ran as a child (its own output first on stdout), through this akm and this workspace.
    const run = await akm(["task", "run", "nightly-improve"])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/"status": "nothing-to-do"/)
    expect((await ok(["task", "history", "nightly-improve"])).runs[0]).toMatchObject({ status: "ok", exit: 0 })
  })

  it("bad input: a clear error, nothing written", async () => {
    const before = crontabText()
    const cases: ReadonlyArray<[ReadonlyArray<string>, RegExp]> = [
      [["task", "add", "x", "--schedule", "0 25 * * *", "--command", "true"], /field 2 \(hour\): 25 is outside 0–23/],
      [["task", "add", "x", "--schedule", "@fortnightly", "--command", "true"], /unknown macro '@fortnightly'/],
      [["task", "add", "x", "--schedule", "@daily", "--workflow", "workflows/missing"], /names the workflow 'workflows\/missing', which is not an indexed workflow/],
      [["task", "add", "x", "--schedule", "@daily", "--command", "a", "--prompt", "b"], /contradict/],
      [["task", "add", "x", "--schedule", "@daily"], /needs something to run/],
      [["task", "enable", "runtime//knowledge/nope"], /not found/]
    ]
    for (const [args, message] of cases) {
      const r = await akm(args)
      expect(r.code, args.join(" ")).not.toBe(0)
      expect(r.error().error.message, args.join(" ")).toMatch(message)
    }
    expect(existsSync(join(bundle, "tasks", "x.yml"))).toBe(false)
    // A task file naming a missing workflow, or with a bad schedule, is refused at enable.
    writeFileSync(join(bundle, "tasks", "lost.yml"), "version: 2\nschedule: \"@daily\"\nworkflow: workflows/missing\n")
    writeFileSync(join(bundle, "tasks", "badcron.yml"), "version: 2\nschedule: \"61 * * * *\"\ncommand: [true]\n")
    await ok(["index"])
    const lost = await akm(["task", "enable", "lost"])
    expect(lost.error().error.message).toMatch(/workflow 'workflows\/missing'/)
    const bad = await akm(["task", "enable", "badcron"])
    expect(bad.error().error.message).toMatch(/badcron\.yml:2: schedule '61 \* \* \* \*': field 1 \(minute\): 61 is outside 0–59/)
    expect(crontabText()).toBe(before)
  })

  it("a corrupt marked block is refused naming the line; nothing is written", async () => {
    await ok(["task", "enable", "nightly"])
    const good = crontabText()!
    const damaged = good.replace(/^# END akm tasks .*\n/m, "")
    writeFileSync(crontab, damaged)
    const r = await akm(["task", "enable", "mark"])
    expect(r.code).toBe(1)
    expect(r.error().error.message).toMatch(/line 5: akm's block is damaged \(a 'BEGIN akm tasks \w+' marker without its END\); nothing was written/)
    expect(crontabText()).toBe(damaged)
    writeFileSync(crontab, good)
    await ok(["task", "disable", "nightly"])
  })
})
