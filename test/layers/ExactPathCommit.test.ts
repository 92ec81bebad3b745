import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as git from "isomorphic-git"
import { afterEach, describe, expect, it } from "vitest"
import { commitExactPaths } from "../../src/layers/git/ExactPathCommit.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const gitCli = (dir: string, ...args: Array<string>) => execFileSync("git", args, { cwd: dir, encoding: "utf8" })

/** A repository made with isomorphic-git: files committed once on main. */
const repository = async (files: Readonly<Record<string, string>>, options: { commit?: boolean } = {}) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-git-")))
  dirs.push(dir)
  await git.init({ fs, dir, defaultBranch: "main" })
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
    await git.add({ fs, dir, filepath: rel })
  }
  if (options.commit !== false) await git.commit({ fs, dir, message: "start", author: { name: "Tester", email: "tester@example.com", timestamp: 1_700_000_000, timezoneOffset: 0 } })
  return dir
}

const write = (dir: string, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
  fs.writeFileSync(path.join(dir, rel), text)
}

describe("commitExactPaths", () => {
  it("moves the branch HEAD names and leaves HEAD on it (never detached)", async () => {
    const dir = await repository({ "a.md": "a1" })
    write(dir, "a.md", "a2")
    const commit = await commitExactPaths(dir, ["a.md"], "akm: apply p0", Date.now())
    expect(gitCli(dir, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/main")
    expect(gitCli(dir, "rev-parse", "refs/heads/main").trim()).toBe(commit!.sha)
  })

  it("commits only the given paths; an unrelated dirty file and an unrelated staged file stay out and keep their state", async () => {
    const dir = await repository({ "a.md": "a1", "b.md": "b1", "sub/c.md": "c1", "sub/keep.md": "k" })
    const before = gitCli(dir, "rev-parse", "HEAD").trim()
    write(dir, "b.md", "b dirty")
    write(dir, "staged.md", "staged")
    await git.add({ fs, dir, filepath: "staged.md" })
    // The engine's change set: update a.md, create sub/new.md, delete sub/c.md.
    write(dir, "a.md", "a2")
    write(dir, "sub/new.md", "new")
    fs.rmSync(path.join(dir, "sub/c.md"))

    const commit = await commitExactPaths(dir, ["a.md", "sub/new.md", "sub/c.md"], "akm: apply p1", Date.now())
    expect(commit?.sha).toMatch(/^[0-9a-f]{40}$/)
    expect(gitCli(dir, "rev-parse", "HEAD").trim()).toBe(commit!.sha)
    expect(gitCli(dir, "rev-parse", "HEAD^").trim()).toBe(before)
    expect(gitCli(dir, "show", "--name-status", "--format=%s", "HEAD").trim().split("\n")).toEqual(["akm: apply p1", "", "M\ta.md", "D\tsub/c.md", "A\tsub/new.md"])
    expect(gitCli(dir, "show", "HEAD:a.md")).toBe("a2")
    expect(gitCli(dir, "show", "HEAD:b.md")).toBe("b1")
    expect(gitCli(dir, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([" M b.md", "A  staged.md"])
    expect(gitCli(dir, "fsck", "--no-progress").trim()).toBe("")
  })

  it("is idempotent: the same paths again make no second commit", async () => {
    const dir = await repository({ "a.md": "a1" })
    write(dir, "a.md", "a2")
    const first = await commitExactPaths(dir, ["a.md"], "one", Date.now())
    expect(first).toBeDefined()
    expect(await commitExactPaths(dir, ["a.md"], "again", Date.now())).toBeUndefined()
    expect(gitCli(dir, "rev-list", "--count", "HEAD").trim()).toBe("2")
  })

  it("works for a bundle in a subdirectory of the repository, with the author from the repository config", async () => {
    const dir = await repository({ "kb/a.md": "a1", "other/x.md": "x" })
    await git.setConfig({ fs, dir, path: "user.name", value: "Repo Owner" })
    await git.setConfig({ fs, dir, path: "user.email", value: "owner@example.com" })
    write(dir, "kb/a.md", "a2")
    write(dir, "other/x.md", "x dirty")
    const commit = await commitExactPaths(path.join(dir, "kb"), ["a.md"], "kb change", Date.now())
    expect(commit?.paths).toEqual(["kb/a.md"])
    expect(gitCli(dir, "show", "--name-only", "--format=%an <%ae>", "HEAD").trim().split("\n")).toEqual(["Repo Owner <owner@example.com>", "", "kb/a.md"])
    expect(gitCli(dir, "status", "--porcelain")).toBe(" M other/x.md\n")
  })

  it("makes the first commit of a repository with no commits yet, and leaves ignored untracked files out", async () => {
    const dir = await repository({ ".gitignore": "*.log\n" }, { commit: false })
    write(dir, "a.md", "a")
    write(dir, "run.log", "log")
    const commit = await commitExactPaths(dir, ["a.md", "run.log"], "first", Date.now())
    expect(commit?.paths).toEqual(["a.md"])
    expect(gitCli(dir, "ls-tree", "-r", "--name-only", "HEAD").trim()).toBe("a.md")
    expect(gitCli(dir, "status", "--porcelain")).toBe("A  .gitignore\n")
  })

  it("keeps a user's own staging of a committed path", async () => {
    const dir = await repository({ "a.md": "a1" })
    write(dir, "a.md", "user staged")
    await git.add({ fs, dir, filepath: "a.md" })
    write(dir, "a.md", "engine wrote")
    await commitExactPaths(dir, ["a.md"], "engine", Date.now())
    expect(gitCli(dir, "show", "HEAD:a.md")).toBe("engine wrote")
    expect(gitCli(dir, "show", ":a.md")).toBe("user staged")
  })
})
