import Database from "better-sqlite3"
import { spawn, type ChildProcess } from "node:child_process"
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type CliResult } from "../support/cli.js"
import { readRows } from "../support/readDatabase.js"

/**
 * Runtime II, workflows (issue 20, spec 07 §2): runs from a frozen plan with
 * REAL child processes — akm itself killed with SIGKILL mid-step and
 * stopped with SIGTERM, then resumed; the workflow file edited under a run;
 * a tampered frozen plan; bad workflows and steps.
 */

const workspace = makeWorkspace()
const work = join(workspace.root, "work")
let bundle = ""

const akm = (args: ReadonlyArray<string>, options: { readonly input?: string } = {}): Promise<CliResult> => workspace.run([...args, "--format", "json"], { cwd: work, ...options })

/** A command step as YAML: node -e with argv, so no shell is involved anywhere. */
const nodeStep = (id: string, script: string, ...args: ReadonlyArray<string>) => `  - id: ${id}\n    command: [node, -e, ${JSON.stringify(script)}${args.map((a) => `, ${JSON.stringify(a)}`).join("")}]\n`
const append = (line: string) => `require('fs').appendFileSync(process.argv[1] + '/count', '${line}\\n')`
/** Appends `start`, waits for the marker file `go`, appends `end`. */
const waitForGo = (name: string) =>
  `const fs = require('fs'); const d = process.argv[1]; fs.appendFileSync(d + '/count', '${name}\\n'); const t = setInterval(() => { if (fs.existsSync(d + '/go')) { clearInterval(t); fs.appendFileSync(d + '/count', '${name}-done\\n') } }, 20)`

const workflowFile = (steps: string, sections: ReadonlyArray<string>, extra = "") =>
  `---\ntype: workflow\ndescription: a test workflow\nparams:\n  dir: {type: path, description: where the steps write}\n${extra}steps:\n${steps}---\n\n# Test\n\n${sections.map((s) => `## ${s}\n\nDoes ${s}.\n`).join("\n")}`

const counted = (dir: string): ReadonlyArray<string> => (existsSync(join(dir, "count")) ? readFileSync(join(dir, "count"), "utf8").split("\n").filter((l) => l !== "") : [])

const until = async (what: string, check: () => boolean, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** akm as a real child in a process group of its own (so SIGKILL to the group takes its step child too, like a closed terminal). */
const spawnAkm = (args: ReadonlyArray<string>): { readonly child: ChildProcess; readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> } => {
  const child = spawn(process.execPath, [join(repoRoot, "bin", "akm.js"), ...args, "--format", "json"], { cwd: work, env: workspace.env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
  child.stdout!.resume()
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stderr })))
  return { child, done }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const outDir = (name: string) => {
  const dir = join(workspace.root, "out", name)
  mkdirSync(dir, { recursive: true })
  return dir
}

beforeAll(async () => {
  mkdirSync(work, { recursive: true })
  bundle = join(workspace.root, "runtime-bundle")
  cpSync(join(repoRoot, "examples", "runtime"), bundle, { recursive: true })
  const three = nodeStep("one", append("one"), "{{dir}}") + nodeStep("two", waitForGo("two"), "{{dir}}") + nodeStep("three", append("three"), "{{dir}}")
  writeFileSync(join(bundle, "workflows", "crash.md"), workflowFile(three, ["one", "two", "three"]))
  // A gate after the first step: the run waits there, which is when the file gets edited.
  writeFileSync(join(bundle, "workflows", "gated.md"), workflowFile(nodeStep("one", append("one"), "{{dir}}") + nodeStep("two", append("original"), "{{dir}}"), ["one", "two"]).replace("Does one.\n", "Does one.\n\n### gate\n\nSomeone looked at count.\n"))
  writeFileSync(join(bundle, "workflows", "checked.md"), workflowFile(nodeStep("one", append("one"), "{{dir}}").replace("\n", "\n    gate: {check: [node, -e, \"process.exit(require('fs').existsSync(process.argv[1] + '/ok') ? 0 : 3)\", \"{{dir}}\"]}\n") + nodeStep("two", append("two"), "{{dir}}"), ["one", "two"]))
  writeFileSync(join(bundle, "workflows", "missing.md"), workflowFile("  - id: first\n    command: [akm-no-such-program-4711, --version]\n", ["first"]))
  writeFileSync(join(bundle, "workflows", "loud.md"), workflowFile(nodeStep("flood", "const b = Buffer.alloc(1024 * 1024, 97); for (let i = 0; i < 100; i++) process.stdout.write(b); process.stdout.write('\\nlast line of the flood\\n')"), ["flood"]).replace("params:\n  dir: {type: path, description: where the steps write}\n", ""))
  writeFileSync(join(bundle, "workflows", "dupes.md"), workflowFile("  - id: a\n    command: [node, -v]\n  - id: a\n    command: [node, -v]\n", ["a"]))
  writeFileSync(join(bundle, "workflows", "odd.md"), workflowFile("  - id: a\n    kind: teleport\n", ["a"]))
  writeFileSync(join(bundle, "workflows", "envy.md"), workflowFile(nodeStep("use", "require('fs').writeFileSync(process.argv[1] + '/token', process.env.WF_TOKEN); console.log('the token is ' + process.env.WF_TOKEN)", "{{dir}}"), ["use"]))
  writeFileSync(join(bundle, "workflows", "asked.md"), workflowFile("  - id: ask\n    prompt: \"Write the word ready into {{dir}}\"\n", ["ask"]))
  const added = await akm(["bundle", "add", bundle, "--name", "runtime"])
  expect(added.code, added.stderr).toBe(0)
}, 120_000)

afterAll(workspace.cleanup)

const runOf = async (id: string) => (await akm(["workflow", "status", id])).json<{ status: string; steps: Array<{ id: string; status: string; attempts: number; summary?: string }>; frozen: { intact: boolean } }>()

describe("akm workflow run (issue 20 done-when)", { timeout: 120_000 }, () => {
  it("adding examples/runtime ran nothing: no run recorded, nothing written (R-RT-1)", async () => {
    expect((await akm(["workflow", "list"])).json()).toMatchObject({ runs: [] })
    expect(existsSync(join(workspace.root, "out"))).toBe(false)
    expect(readRows(join(workspace.dataDir, "state.db"), "SELECT id FROM workflow_runs")).toEqual([])
  })

  it("runs examples/runtime/workflows/hello to completion; resuming a finished run is a no-op (R-RT-5)", async () => {
    const dir = join(workspace.root, "out", "hello")
    const r = await akm(["workflow", "run", "runtime//workflows/hello", "--param", `dir=${dir}`, "--param", "name=akm"])
    expect(r.code, r.stderr).toBe(0)
    const run = r.json<{ id: string; status: string; steps: Array<{ id: string; status: string; attempts: number }> }>()
    expect(run.status).toBe("done")
    expect(run.steps.map((s) => [s.id, s.status, s.attempts])).toEqual([["greet", "done", 1], ["sign", "done", 1]])
    expect(readFileSync(join(dir, "hello.txt"), "utf8")).toBe("hello akm\n")
    expect(readFileSync(join(dir, "done.txt"), "utf8")).toBe("signed\n")
    const again = await akm(["workflow", "resume", run.id])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({ status: "done", unchanged: true })
    expect(readFileSync(join(dir, "done.txt"), "utf8")).toBe("signed\n")
    const listed = (await akm(["workflow", "list"])).json<{ runs: Array<{ id: string; status: string }> }>()
    expect(listed.runs).toContainEqual(expect.objectContaining({ id: run.id, status: "done" }))
  })

  it("SIGKILL during the second step, then resume re-runs only that step, once (R-RT-5)", async () => {
    const dir = outDir("crash")
    const { child, done } = spawnAkm(["workflow", "run", "runtime//workflows/crash", "--param", `dir=${dir}`])
    await until("the second step to start", () => counted(dir).includes("two"))
    process.kill(-child.pid!, "SIGKILL")
    const killed = await done
    expect(killed.signal).toBe("SIGKILL")
    expect(counted(dir)).toEqual(["one", "two"])
    const [row] = readRows<{ id: string }>(join(workspace.dataDir, "state.db"), "SELECT id FROM workflow_runs WHERE workflow = 'runtime//workflows/crash'")
    const id = row!.id
    expect((await runOf(id)).steps.map((s) => [s.id, s.status])).toEqual([["one", "done"], ["two", "running"], ["three", "pending"]])
    writeFileSync(join(dir, "go"), "")
    const resumed = await akm(["workflow", "resume", id])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(counted(dir)).toEqual(["one", "two", "two", "two-done", "three"])
    expect((await runOf(id)).steps.map((s) => [s.id, s.status, s.attempts])).toEqual([["one", "done", 1], ["two", "done", 2], ["three", "done", 1]])
    // Resumed again: finished, nothing runs.
    expect((await akm(["workflow", "resume", id])).code).toBe(0)
    expect(counted(dir)).toEqual(["one", "two", "two", "two-done", "three"])
  })

  it("SIGKILL of akm alone: while the step's program still runs, resume refuses to start a second copy", async () => {
    const dir = outDir("orphan")
    const { child, done } = spawnAkm(["workflow", "run", "runtime//workflows/crash", "--param", `dir=${dir}`])
    await until("the second step to start", () => counted(dir).includes("two"))
    const running = () => readRows<{ id: string }>(join(workspace.dataDir, "state.db"), "SELECT run_id AS id FROM workflow_steps WHERE step_id = 'two' AND status = 'running' AND pid IS NOT NULL")
    await until("the step's pid to be recorded", () => running().length === 1)
    const [row] = running()
    process.kill(child.pid!, "SIGKILL")
    await done
    const refused = await akm(["workflow", "resume", row!.id])
    expect(refused.code).toBe(1)
    expect(refused.error().error.code).toBe("conflict")
    expect(refused.error().error.message).toMatch(/step 'two' .* is still running from before \(pid \d+\)/)
    expect(counted(dir)).toEqual(["one", "two"])
    // The orphan ends; now the step runs again (its end was never recorded), once.
    writeFileSync(join(dir, "go"), "")
    await until("the orphan to finish", () => counted(dir).includes("two-done"))
    await until("the orphan to exit", () => !readRows<{ pid: number }>(join(workspace.dataDir, "state.db"), `SELECT pid FROM workflow_steps WHERE run_id = '${row!.id}' AND step_id = 'two'`).some((r) => isAlive(r.pid)))
    const resumed = await akm(["workflow", "resume", row!.id])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(counted(dir)).toEqual(["one", "two", "two-done", "two", "two-done", "three"])
  })

  it("SIGTERM stops a run cleanly with 143; it stays resumable", async () => {
    const dir = outDir("term")
    const { child, done } = spawnAkm(["workflow", "run", "runtime//workflows/crash", "--param", `dir=${dir}`])
    await until("the second step to start", () => counted(dir).includes("two"))
    child.kill("SIGTERM")
    const stopped = await done
    expect(stopped.code, stopped.stderr).toBe(143)
    const rows = readRows<{ id: string; status: string }>(join(workspace.dataDir, "state.db"), "SELECT id, status FROM workflow_runs WHERE workflow = 'runtime//workflows/crash' ORDER BY created_at DESC LIMIT 1")
    const id = rows[0]!.id
    expect(rows[0]!.status).toBe("paused")
    expect((await runOf(id)).steps.map((s) => [s.id, s.status])).toEqual([["one", "done"], ["two", "pending"], ["three", "pending"]])
    writeFileSync(join(dir, "go"), "")
    const resumed = await akm(["workflow", "resume", id])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(counted(dir)).toEqual(["one", "two", "two", "two-done", "three"])
  })

  it("editing the workflow during a run does not change that run (R-RT-4); a tampered frozen plan fails loudly", async () => {
    const dir = outDir("edit")
    const first = await akm(["workflow", "run", "runtime//workflows/gated", "--param", `dir=${dir}`])
    expect(first.code, first.stderr).toBe(4)
    const run = first.json<{ id: string; status: string; waiting: { step: string; kind: string; text: string } }>()
    expect(run.status).toBe("waiting")
    expect(run.waiting).toEqual({ step: "one", kind: "gate", text: "Someone looked at count." })
    // The file changes, and the index learns it: the run keeps its frozen plan.
    const file = join(bundle, "workflows", "gated.md")
    writeFileSync(file, readFileSync(file, "utf8").replace("original", "EDITED"))
    expect((await akm(["index"])).code).toBe(0)
    const resumed = await akm(["workflow", "resume", run.id, "--confirm"])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(counted(dir)).toEqual(["one", "original"])
    // A new run uses the edited file.
    const dir2 = outDir("edit2")
    const second = await akm(["workflow", "run", "runtime//workflows/gated", "--param", `dir=${dir2}`])
    const id2 = second.json<{ id: string }>().id
    const db = new Database(join(workspace.dataDir, "state.db"))
    try {
      const { frozen } = db.prepare("SELECT frozen FROM workflow_runs WHERE id = ?").get(id2) as { frozen: string }
      db.prepare("UPDATE workflow_runs SET frozen = ? WHERE id = ?").run(frozen.replace("EDITED", "TAMPERED"), id2)
    } finally {
      db.close()
    }
    const tampered = await akm(["workflow", "resume", id2, "--confirm"])
    expect(tampered.code).toBe(1)
    expect(tampered.error().error.code).toBe("plan_tampered")
    expect(tampered.error().error.message).toContain(id2)
    expect(counted(dir2)).toEqual(["one"])
    expect((await runOf(id2)).frozen.intact).toBe(false)
  })

  it("a gate's check command passes it; a failing check waits for --confirm", async () => {
    const dir = outDir("check")
    const first = await akm(["workflow", "run", "runtime//workflows/checked", "--param", `dir=${dir}`])
    expect(first.code, first.stderr).toBe(4)
    const id = first.json<{ id: string }>().id
    expect(counted(dir)).toEqual(["one"])
    writeFileSync(join(dir, "ok"), "")
    const passed = await akm(["workflow", "resume", id])
    expect(passed.code, passed.stderr).toBe(0)
    // The step's command ran once: resume re-checked the gate only.
    expect(counted(dir)).toEqual(["one", "two"])
  })

  it("prompt steps go to runtime.agentCommand (prompt on stdin), or wait for the calling agent", async () => {
    const dir = outDir("prompt")
    const interactive = await akm(["workflow", "run", "runtime//workflows/asked", "--param", `dir=${dir}`, "--interactive-agent"])
    expect(interactive.code, interactive.stderr).toBe(4)
    const waiting = interactive.json<{ id: string; waiting: { kind: string; text: string } }>()
    expect(waiting.waiting).toEqual({ step: "ask", kind: "prompt", text: `Write the word ready into ${dir}` })
    const finished = await akm(["workflow", "resume", waiting.id])
    expect(finished.code, finished.stderr).toBe(0)
    expect(finished.json()).toMatchObject({ status: "done" })

    const configFile = join(workspace.configDir, "config.yaml")
    const before = readFileSync(configFile, "utf8")
    appendFileSync(configFile, `runtime:\n  agentCommand: [node, -e, ${JSON.stringify("let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => require('fs').writeFileSync(process.argv[1] + '/agent-got', s))")}, ${JSON.stringify(dir)}]\n`)
    try {
      const agent = await akm(["workflow", "run", "runtime//workflows/asked", "--param", `dir=${dir}`])
      expect(agent.code, agent.stderr).toBe(0)
      expect(readFileSync(join(dir, "agent-got"), "utf8")).toBe(`Write the word ready into ${dir}`)
    } finally {
      writeFileSync(configFile, before)
    }
  })
})

describe("budgets and abandoning", { timeout: 120_000 }, () => {
  it("--max-steps pauses after N steps (exit 4); resume goes on; --timeout stops the step in flight, which resume re-runs", async () => {
    const dir = outDir("budget")
    const first = await akm(["workflow", "run", "runtime//workflows/hello", "--param", `dir=${dir}`, "--max-steps", "1"])
    expect(first.code, first.stderr).toBe(4)
    const run = first.json<{ id: string; status: string; steps: Array<{ status: string }> }>()
    expect([run.status, run.steps.map((s) => s.status)]).toEqual(["paused", ["done", "pending"]])
    expect(existsSync(join(dir, "done.txt"))).toBe(false)
    const rest = await akm(["workflow", "resume", run.id])
    expect(rest.code, rest.stderr).toBe(0)
    expect(readFileSync(join(dir, "done.txt"), "utf8")).toBe("signed\n")

    const slow = outDir("slow")
    const timed = await akm(["workflow", "run", "runtime//workflows/crash", "--param", `dir=${slow}`, "--timeout", "2s"])
    expect(timed.code, timed.stderr).toBe(4)
    const paused = timed.json<{ id: string; status: string; message: string; steps: Array<{ id: string; status: string }> }>()
    expect(paused.status).toBe("paused")
    expect(paused.message).toContain("time limit")
    expect(paused.steps.map((s) => [s.id, s.status])).toEqual([["one", "done"], ["two", "pending"], ["three", "pending"]])
    writeFileSync(join(slow, "go"), "")
    expect((await akm(["workflow", "resume", paused.id])).code).toBe(0)
    expect(counted(slow)).toEqual(["one", "two", "two", "two-done", "three"])
  })

  it("abandon closes a run for good: resume refuses it; an unknown run is not found", async () => {
    const dir = outDir("abandon")
    const waiting = await akm(["workflow", "run", "runtime//workflows/gated", "--param", `dir=${dir}`])
    expect(waiting.code).toBe(4)
    const id = waiting.json<{ id: string }>().id
    const abandoned = await akm(["workflow", "abandon", id])
    expect(abandoned.code, abandoned.stderr).toBe(0)
    expect(abandoned.json()).toMatchObject({ id, abandoned: true })
    const resumed = await akm(["workflow", "resume", id, "--confirm"])
    expect(resumed.code).toBe(1)
    expect(resumed.error().error.code).toBe("conflict")
    expect(counted(dir)).toEqual(["one"])
    expect((await akm(["workflow", "abandon", "no-such-run"])).error().error.code).toBe("not_found")
  })
})

describe("env bindings of a workflow (spec 07 §2, R-RT-7)", { timeout: 120_000 }, () => {
  const TOKEN = "wf-CANARY-9d41c7-value"

  it("a binding's secret reaches each step's environment only: never state.db, logs.db or akm's output", async () => {
    const set = await akm(["secret", "set", "runtime//secrets/wf-token"], { input: `${TOKEN}\n` })
    expect(set.code, set.stderr).toBe(0)
    const bound = await akm(["bind", "runtime//workflows/envy", "--as", "envy", "--env", "WF_TOKEN=secret:runtime//secrets/wf-token", "--param", `dir=${outDir("envy")}`])
    expect(bound.code, bound.stderr).toBe(0)
    const r = await akm(["workflow", "run", "envy"])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(workspace.root, "out", "envy", "token"), "utf8")).toBe(TOKEN)
    const id = r.json<{ id: string }>().id
    const status = await akm(["workflow", "status", id, "--logs", "10"])
    for (const text of [r.stdout, r.stderr, status.stdout, status.stderr]) expect(text).not.toContain(TOKEN)
    expect(status.json<{ frozen: { env: Record<string, string> } }>().frozen.env).toEqual({ WF_TOKEN: "secret:runtime//secrets/wf-token" })
    for (const db of ["state.db", "state.db-wal", "logs.db", "logs.db-wal"].filter((f) => existsSync(join(workspace.dataDir, f)))) {
      expect(readFileSync(join(workspace.dataDir, db)).includes(Buffer.from(TOKEN)), db).toBe(false)
    }
    const logged = readRows<{ message: string }>(join(workspace.dataDir, "logs.db"), `SELECT message FROM lines WHERE run = 'workflow/${id}'`).map((l) => l.message).join("\n")
    expect(logged).toContain("the token is [redacted")
  })
})

describe("bad workflows and steps (issue 20 item 4)", { timeout: 120_000 }, () => {
  const runs = () => readRows<{ n: number }>(join(workspace.dataDir, "state.db"), "SELECT count(*) AS n FROM workflow_runs")[0]!.n

  it("duplicate step ids and an unknown step kind are clear errors; nothing is recorded", async () => {
    const before = runs()
    for (const name of ["dupes", "odd"]) {
      const r = await akm(["workflow", "run", `runtime//workflows/${name}`, "--param", "dir=x"])
      expect(r.code).toBe(1)
      expect(r.error().error.code).toBe("workflow_invalid")
      expect(r.error().error.message).toContain(`workflows/${name}.md`)
      expect(r.error().error.hint).toContain("akm lint")
    }
    expect(runs()).toBe(before)
    const lint = await akm(["lint"])
    const messages = JSON.stringify(lint.json())
    expect(messages).toContain("step 'a' is declared twice")
    expect(messages).toContain("unknown step kind 'teleport'")
  })

  it("a missing param and an unknown param are refused by name before anything runs", async () => {
    const before = runs()
    const missing = await akm(["workflow", "run", "runtime//workflows/hello"])
    expect(missing.code).toBe(2)
    expect(missing.error().error.message).toContain("'dir'")
    const unknown = await akm(["workflow", "run", "runtime//workflows/hello", "--param", "dir=x", "--param", "colour=red"])
    expect(unknown.code).toBe(2)
    expect(unknown.error().error.message).toContain("'colour'")
    expect(runs()).toBe(before)
  })

  it("a step command that does not exist fails naming the step; the run is failed, not half-written", async () => {
    const r = await akm(["workflow", "run", "runtime//workflows/missing", "--param", "dir=x"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("not_started")
    expect(r.error().error.message).toContain("step 'first'")
    expect(r.error().error.message).toContain("akm-no-such-program-4711")
    const [row] = readRows<{ id: string; status: string }>(join(workspace.dataDir, "state.db"), "SELECT id, status FROM workflow_runs WHERE workflow = 'runtime//workflows/missing'")
    expect(row!.status).toBe("failed")
    expect((await runOf(row!.id)).steps).toEqual([expect.objectContaining({ id: "first", status: "failed" })])
  })

  it("a step printing 100 MB: the capture is bounded, nothing crashes", async () => {
    const r = await akm(["workflow", "run", "runtime//workflows/loud"])
    expect(r.code, r.stderr).toBe(0)
    const run = r.json<{ id: string; steps: Array<{ summary?: string }> }>()
    expect(run.steps[0]!.summary).toBe("last line of the flood")
    const lines = readRows<{ message: string }>(join(workspace.dataDir, "logs.db"), `SELECT message FROM lines WHERE run = 'workflow/${run.id}'`)
    const total = lines.reduce((n, l) => n + l.message.length, 0)
    expect(total).toBeLessThan(200 * 1024)
    expect(lines.map((l) => l.message).join("\n")).toMatch(/\[… \d+ bytes of output not kept …\]/)
    expect(statSync(join(workspace.dataDir, "logs.db")).size).toBeLessThan(5 * 1024 * 1024)
  })
})
