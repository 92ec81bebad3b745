import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type CliResult, type RunOptions } from "../support/cli.js"
import { makeGitRepo, type GitRepo } from "../support/gitRepo.js"
import { readRows } from "../support/readDatabase.js"

/**
 * Runtime I (issue 19, spec 07 §1 and §4): install ≠ bind ≠ run, bindings
 * pinned to a digest, env values injected into a child only, env set and
 * secret set, and the secret canary (spec 10 §3) over everything they touch.
 * The git bundle is a real local repository added with `akm bundle add --git`.
 */

const ORIGINAL = "demo-token-0000-not-a-real-secret"
const SET_VALUE = "rotated-CANARY-7f3a9c-value"
const SECRET_VALUE = "secret-CANARY-51be20-value"
const TEAM_VALUE = "team-CANARY-c0ffee-value"
const CANARIES = [ORIGINAL, SET_VALUE, SECRET_VALUE, TEAM_VALUE]

const workspace = makeWorkspace()
const gitHome = join(workspace.root, "git-home")
const work = join(workspace.root, "work")
let bundle = ""
let team: GitRepo
const outputs: Array<{ readonly args: string; readonly out: string }> = []

const akm = async (args: ReadonlyArray<string>, options: RunOptions = {}): Promise<CliResult> => {
  const r = await workspace.run(args, { cwd: work, ...options })
  outputs.push({ args: args.join(" "), out: r.stdout + r.stderr })
  return r
}

const read = (file: string): string => readFileSync(join(work, file), "utf8")
const mode = (file: string): number => statSync(file).mode & 0o777

const walkFiles = (dir: string): ReadonlyArray<string> => {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name)
    const stat = lstatSync(abs)
    return stat.isDirectory() ? walkFiles(abs) : stat.isFile() ? [abs] : []
  })
}

beforeAll(async () => {
  mkdirSync(gitHome, { recursive: true })
  mkdirSync(work, { recursive: true })
  // The docs' example bundle, copied: env set writes into it.
  bundle = join(workspace.root, "runtime-bundle")
  cpSync(join(repoRoot, "examples", "runtime"), bundle, { recursive: true })
  writeFileSync(join(bundle, "env", "need.env"), "# akm:public Needs a value\n\nNEEDED=\nGIVEN=yes\n")
  writeFileSync(join(bundle, "env", "dupe.env"), "A_KEY=one\nA_KEY=two\n")
  writeFileSync(join(bundle, "env", "latin1.env"), Buffer.from([0x4b, 0x3d, 0xe9, 0xff, 0x0a]))
  const added = await akm(["bundle", "add", bundle, "--name", "runtime"])
  expect(added.code, added.stderr).toBe(0)
  // A team bundle from git: its env file sets PATH, and a script that would leave a mark if anything ran it.
  team = makeGitRepo(join(workspace.root, "repos", "team"), gitHome, {
    "env/x.env": `# akm:public Team tools\n\nPATH=/opt/team/bin\nTEAM_TOKEN=${TEAM_VALUE}\n`,
    "scripts/mark.sh": `#!/bin/sh\ntouch ${join(work, "installed-and-ran")}\n`,
    "tasks/mark.yml": `version: 2\nschedule: "@daily"\ncommand: touch ${join(work, "installed-and-ran")}\n`,
    "knowledge/team.md": "---\ndescription: The team bundle\n---\n# Team\n"
  })
  const git = await akm(["bundle", "add", "--git", team.dir, "--name", "team"])
  expect(git.code, git.stderr).toBe(0)
}, 120_000)

afterAll(workspace.cleanup)

describe("akm env run, env set, bind (issue 19 done-when)", { timeout: 120_000 }, () => {
  it("env run writes the value into the child's file and nowhere in akm's own output", async () => {
    const r = await akm(["env", "run", "runtime//env/demo", "--", "sh", "-c", "printf %s \"$DEMO_TOKEN\" > out"])
    expect(r.code, r.stderr).toBe(0)
    expect(read("out")).toBe(ORIGINAL)
    expect(r.stdout + r.stderr).not.toContain(ORIGINAL)
  })

  it("the child's exit code is forwarded; argv runs without a shell (nothing expanded)", async () => {
    expect((await akm(["env", "run", "runtime//env/demo", "--", "sh", "-c", "exit 7"])).code).toBe(7)
    const r = await akm(["env", "run", "runtime//env/demo", "--", "node", "-e", "require('fs').writeFileSync('argv', process.argv[1])", "$DEMO_TOKEN $(id)"])
    expect(r.code, r.stderr).toBe(0)
    expect(read("argv")).toBe("$DEMO_TOKEN $(id)")
  })

  it("env list shows key names, required/set and marked defaults, never a value", async () => {
    const r = await akm(["env", "list", "runtime//env/demo", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const keys = r.json().items[0].keys
    expect(keys).toEqual([
      expect.objectContaining({ name: "DEMO_TOKEN", required: false }),
      expect.objectContaining({ name: "DEMO_URL", required: false, default: "http://127.0.0.1:8080" })
    ])
    expect(keys[0].default).toBeUndefined()
    expect(r.stdout).not.toContain(ORIGINAL)
  })

  it("env set (value from stdin, one newline dropped) changes exactly the one file, 0600; env run then uses the new value", async () => {
    const file = join(bundle, "env", "demo.env")
    const others = () => walkFiles(bundle).filter((f) => f !== file).map((f) => `${f}:${readFileSync(f, "hex")}`).join("\n")
    const before = others()
    const set = await akm(["env", "set", "runtime//env/demo", "DEMO_TOKEN"], { input: `${SET_VALUE}\n` })
    expect(set.code, set.stderr).toBe(0)
    expect(others()).toBe(before)
    // The event holds the ref, the key name and the new file's hash: nothing else.
    const events = readRows<{ subject: string; data: string }>(join(workspace.dataDir, "state.db"), "SELECT subject, data FROM events WHERE kind = 'env.set'")
    expect(events.map((e) => [e.subject, Object.keys(JSON.parse(e.data)).sort()])).toEqual([["runtime//env/demo", ["hash", "key"]]])
    expect(JSON.parse(events[0]!.data)).toMatchObject({ key: "DEMO_TOKEN", hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(mode(file)).toBe(0o600)
    expect(readFileSync(file, "utf8")).toContain(`DEMO_TOKEN=${SET_VALUE}\n`)
    expect(readFileSync(file, "utf8")).toContain("DEMO_URL=http://127.0.0.1:8080\n")
    const r = await akm(["env", "run", "runtime//env/demo", "--", "sh", "-c", "printf %s \"$DEMO_TOKEN\" > out2"])
    expect(r.code, r.stderr).toBe(0)
    expect(read("out2")).toBe(SET_VALUE)
    // No proposal was made for it.
    const proposals = await akm(["proposal", "list", "--format", "json"])
    expect(JSON.stringify(proposals.json())).not.toContain("demo.env")
  })

  it("installing a git bundle runs nothing; env run of its unbound env item is refused with a hint naming akm bind (R-RT-1, R-RT-2)", async () => {
    expect(existsSync(join(work, "installed-and-ran"))).toBe(false)
    const r = await akm(["env", "run", "team//env/x", "--", "/bin/sh", "-c", "touch unbound-ran"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("not_bound")
    expect(r.error().error.hint).toContain("akm bind team//env/x")
    expect(existsSync(join(work, "unbound-ran"))).toBe(false)
  })

  it("after bind --as x, a PATH key from the git bundle exits 2 with nothing run; --allow-dangerous PATH runs it (R-RT-8)", async () => {
    const bound = await akm(["bind", "team//env/x", "--as", "x"])
    expect(bound.code, bound.stderr).toBe(0)
    const refused = await akm(["env", "run", "x", "--", "/bin/sh", "-c", "touch dangerous-ran"])
    expect(refused.code).toBe(2)
    expect(refused.error().error.message).toContain("PATH")
    expect(refused.error().error.hint).toContain("--allow-dangerous PATH")
    expect(existsSync(join(work, "dangerous-ran"))).toBe(false)
    const allowed = await akm(["env", "run", "x", "--allow-dangerous", "PATH", "--", "/bin/sh", "-c", "printf '%s %s' \"$PATH\" \"$TEAM_TOKEN\" > team-out"])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(read("team-out")).toBe(`/opt/team/bin ${TEAM_VALUE}`)
    // --only leaves the dangerous key out instead.
    const only = await akm(["env", "run", "x", "--only", "TEAM_TOKEN", "--", "/bin/sh", "-c", "printf %s \"$TEAM_TOKEN\" > only-out"])
    expect(only.code, only.stderr).toBe(0)
    expect(read("only-out")).toBe(TEAM_VALUE)
  })

  it("a bound export changed upstream is refused with a diff until bind --update (R-RT-3)", async () => {
    team.commit({ "env/x.env": `# akm:public Team tools\n\nPATH=/opt/team/bin\nTEAM_TOKEN=${TEAM_VALUE}\nEXTRA_HOOK=1\n` })
    const update = await akm(["bundle", "update", "team"])
    expect(update.code, update.stderr).toBe(0)
    const refused = await akm(["env", "run", "x", "--allow-dangerous", "PATH", "--", "/bin/sh", "-c", "touch changed-ran"])
    expect(refused.code).toBe(1)
    expect(refused.error().error.code).toBe("export_changed")
    expect(refused.error().error.message).toContain("+EXTRA_HOOK")
    expect(refused.error().error.hint).toContain("akm bind --update x")
    expect(existsSync(join(work, "changed-ran"))).toBe(false)
    const listed = await akm(["bindings", "--format", "json"])
    expect(listed.json().bindings).toEqual([expect.objectContaining({ alias: "x", ref: "team//env/x", status: "changed" })])
    const approved = await akm(["bind", "--update", "x", "--format", "json"])
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.json()).toMatchObject({ alias: "x", changed: true })
    expect(approved.json().diff).toContain("+EXTRA_HOOK")
    const ran = await akm(["env", "run", "x", "--allow-dangerous", "PATH", "--", "/bin/sh", "-c", ": > changed-ran"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(existsSync(join(work, "changed-ran"))).toBe(true)
  })
})

describe("secrets, bindings with references, export, and bad input", { timeout: 120_000 }, () => {
  it("a missing required key: exit 1 naming the key, nothing run", async () => {
    const r = await akm(["env", "run", "runtime//env/need", "--", "sh", "-c", "touch need-ran"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("env_incomplete")
    expect(r.error().error.message).toContain("NEEDED")
    expect(existsSync(join(work, "need-ran"))).toBe(false)
  })

  it("secret set from stdin: 0600, one trailing newline dropped; secret list names it; a binding maps a key to it", async () => {
    const set = await akm(["secret", "set", "runtime//secrets/api"], { input: `${SECRET_VALUE}\n` })
    expect(set.code, set.stderr).toBe(0)
    const file = join(bundle, "secrets", "api")
    expect(readFileSync(file, "utf8")).toBe(SECRET_VALUE)
    expect(mode(file)).toBe(0o600)
    const listed = await akm(["secret", "list", "--format", "json"])
    expect(listed.json().secrets).toEqual([expect.objectContaining({ ref: "runtime//secrets/api" })])
    const bound = await akm(["bind", "runtime//env/need", "--as", "need", "--env", "NEEDED=secret:runtime//secrets/api"])
    expect(bound.code, bound.stderr).toBe(0)
    const r = await akm(["env", "run", "need", "--", "sh", "-c", "printf '%s %s' \"$NEEDED\" \"$GIVEN\" > need-out"])
    expect(r.code, r.stderr).toBe(0)
    expect(read("need-out")).toBe(`${SECRET_VALUE} yes`)
  })

  it("env export writes a 0600 dotenv file, never stdout", async () => {
    const r = await akm(["env", "export", "need", "--out", "exported.env", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(mode(join(work, "exported.env"))).toBe(0o600)
    expect(read("exported.env")).toBe(`NEEDED=${SECRET_VALUE}\nGIVEN=yes\n`)
    expect(r.stdout).not.toContain(SECRET_VALUE)
    expect((await akm(["env", "export", "need", "--out", "-"])).code).toBe(2)
  })

  it("a duplicate key and invalid UTF-8 are refused naming the file and line, nothing run", async () => {
    const dupe = await akm(["env", "run", "runtime//env/dupe", "--", "sh", "-c", "touch dupe-ran"])
    expect(dupe.code).toBe(1)
    expect(dupe.error().error.message).toContain("dupe.env:2")
    expect(dupe.error().error.message).toContain("A_KEY")
    const latin1 = await akm(["env", "run", "runtime//env/latin1", "--", "sh", "-c", "touch latin1-ran"])
    expect(latin1.code).toBe(1)
    expect(latin1.error().error.message).toContain("latin1.env is not valid UTF-8")
    expect(existsSync(join(work, "dupe-ran")) || existsSync(join(work, "latin1-ran"))).toBe(false)
  })

  it("a value on argv is a usage error that does not echo it; a 6 MiB secret is refused; neither writes", async () => {
    const argv = await akm(["secret", "set", "runtime//secrets/argv", "argv-CANARY-never-echoed"])
    expect(argv.code).toBe(2)
    expect(argv.stdout + argv.stderr).not.toContain("argv-CANARY-never-echoed")
    const kv = await akm(["env", "set", "runtime//env/demo", "DEMO_TOKEN=argv-CANARY-never-echoed"])
    expect(kv.code).toBe(2)
    expect(kv.stdout + kv.stderr).not.toContain("argv-CANARY-never-echoed")
    const big = await akm(["secret", "set", "runtime//secrets/big"], { input: Buffer.alloc(6 * 1024 * 1024, 0x61) })
    expect(big.code).toBe(2)
    expect(big.error().error.message).toContain("5 MiB")
    expect(existsSync(join(bundle, "secrets", "argv")) || existsSync(join(bundle, "secrets", "big"))).toBe(false)
  })

  it("env set into a git bundle is refused (it is upstream's); unbind removes a binding", async () => {
    const r = await akm(["env", "set", "team//env/x", "TEAM_TOKEN"], { input: "x-value-123456\n" })
    expect(r.code).toBe(1)
    expect(r.error().error.message).toContain("read-only")
    const gone = await akm(["unbind", "need"])
    expect(gone.code, gone.stderr).toBe(0)
    expect((await akm(["unbind", "need"])).code).toBe(1)
  })
})

describe("secret canary over the runtime (spec 10 §3, R-RT-7, R-DB-2)", () => {
  it("no value is in any db, log, journal, blob, config or akm output; the child's files hold them", () => {
    for (const { args, out } of outputs) {
      for (const canary of CANARIES) expect(out.includes(canary), `output of akm ${args}`).toBe(false)
    }
    // The git bundle's own files (its cache copy) hold its values by design; everything else akm keeps must not.
    const sources = join(workspace.cacheDir, "sources")
    const kept = [workspace.configDir, workspace.dataDir, workspace.cacheDir].flatMap(walkFiles).filter((f) => !f.startsWith(sources))
    expect(kept.some((f) => f.endsWith("state.db"))).toBe(true)
    expect(kept.some((f) => f.endsWith("index.db"))).toBe(true)
    for (const file of kept) {
      const bytes = readFileSync(file)
      for (const canary of CANARIES) expect(bytes.includes(canary), `${file} holds a value`).toBe(false)
    }
    expect(read("out")).toBe(ORIGINAL)
  })
})
