import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { GitHistoryIsomorphic } from "../../src/layers/git/GitHistoryIsomorphic.js"
import { GitHistory, type HistoryWindow } from "../../src/services/GitHistory.js"
import { gitAt, makeDatedGitRepo } from "../support/datedGitRepo.js"
import { treeDigest } from "../support/gitRepo.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const temp = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-githistory-")))
  dirs.push(dir)
  return dir
}

const since = (dir: string, iso: string) =>
  Effect.runPromise(Effect.either(Effect.flatMap(GitHistory, (history) => history.since(dir, Date.parse(iso))).pipe(Effect.provide(GitHistoryIsomorphic))))
const window = async (dir: string, iso: string): Promise<HistoryWindow> => {
  const result = await since(dir, iso)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}
const failureOf = async (dir: string, iso: string) => {
  const result = await since(dir, iso)
  if (Either.isRight(result)) throw new Error("expected the history to be refused")
  return result.left
}

const history = () => {
  const home = temp()
  const repo = makeDatedGitRepo(path.join(home, "repo"), home)
  repo.commit("2026-08-01T10:00:00Z", "feat: start", { "src/db/lock.ts": "1", "src/db/pool.ts": "1", "README.md": "hi" })
  repo.commit("2026-11-10T10:00:00Z", "feat: api", { "src/api/users.ts": "1", "README.md": "hello" })
  repo.commit("2026-11-12T10:00:00Z", "fix(db): retry the lock", { "src/db/lock.ts": "2", "src/db/pool.ts": null })
  return { home, repo }
}

describe("GitHistory (isomorphic-git)", () => {
  it("walks commits after `since`, newest first, each with the paths it changed against its parent; a root commit lists its files", async () => {
    const { repo } = history()
    const result = await window(path.join(repo.dir, "src"), "2026-07-01T00:00:00Z")
    expect(result.root).toBe(repo.dir)
    expect(result.commits.map((c) => [c.message.trim(), new Date(c.time).toISOString(), c.paths])).toEqual([
      ["fix(db): retry the lock", "2026-11-12T10:00:00.000Z", ["src/db/lock.ts", "src/db/pool.ts"]],
      ["feat: api", "2026-11-10T10:00:00.000Z", ["README.md", "src/api/users.ts"]],
      ["feat: start", "2026-08-01T10:00:00.000Z", ["README.md", "src/db/lock.ts", "src/db/pool.ts"]]
    ])
    expect((await window(repo.dir, "2026-11-01T00:00:00Z")).commits.map((c) => c.message.trim())).toEqual(["fix(db): retry the lock", "feat: api"])
  })

  it("a merge lists no paths of its own; the branch's commits are walked", async () => {
    const { home, repo } = history()
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("2026-11-13T10:00:00Z", "fix: on the branch", { "src/api/users.ts": "2" })
    repo.git("checkout", "-q", "main")
    repo.commit("2026-11-14T10:00:00Z", "docs: readme", { "README.md": "3" })
    gitAt(repo.dir, home, "2026-11-15T10:00:00Z", "merge", "-q", "--no-ff", "-m", "Merge branch 'topic'", "topic")
    const result = await window(repo.dir, "2026-11-11T00:00:00Z")
    expect(result.commits.map((c) => [c.message.trim(), c.parents, c.paths])).toEqual([
      ["Merge branch 'topic'", 2, []],
      ["docs: readme", 1, ["README.md"]],
      ["fix: on the branch", 1, ["src/api/users.ts"]],
      ["fix(db): retry the lock", 1, ["src/db/lock.ts", "src/db/pool.ts"]]
    ])
  })

  it("reads without writing: the repository is byte-identical afterwards", async () => {
    const { repo } = history()
    const before = treeDigest(repo.dir)
    await window(repo.dir, "2026-01-01T00:00:00Z")
    expect(treeDigest(repo.dir)).toBe(before)
  })

  it("a repository without commits has an empty history; a folder outside any repository is refused", async () => {
    const home = temp()
    makeDatedGitRepo(path.join(home, "empty"), home)
    expect((await window(path.join(home, "empty"), "2026-01-01T00:00:00Z")).commits).toEqual([])
    fs.mkdirSync(path.join(home, "plain"))
    expect(await failureOf(path.join(home, "plain"), "2026-01-01T00:00:00Z")).toMatchObject({ _tag: "GitHistoryUnreadable", reason: "not inside a git work tree" })
  })

  it("a shallow clone cut inside the window is refused with how to fetch more; cut before the window it is fine", async () => {
    const { home, repo } = history()
    const clone = path.join(home, "clone")
    gitAt(home, home, undefined, "clone", "-q", "--depth", "2", `file://${repo.dir}`, clone)
    const error = await failureOf(clone, "2026-07-01T00:00:00Z")
    expect(error.reason).toContain("the history is shallow")
    expect(error.reason).toContain("2026-11-10")
    expect(error.hint).toContain("git fetch --unshallow")
    expect((await window(clone, "2026-11-11T00:00:00Z")).commits.map((c) => c.message.trim())).toEqual(["fix(db): retry the lock"])
  })

  it("a missing object is reported as a damaged history, naming the problem", async () => {
    const { repo } = history()
    const parent = repo.git("rev-parse", "HEAD~1")
    fs.rmSync(path.join(repo.dir, ".git", "objects", parent.slice(0, 2), parent.slice(2)))
    const error = await failureOf(repo.dir, "2026-01-01T00:00:00Z")
    expect(error).toMatchObject({ _tag: "GitHistoryUnreadable", reason: expect.stringContaining("the git history is damaged (a commit or tree object is missing") })
    expect(error.hint).toContain("git fsck")
  })
})

describe("GitHistory.trackedFiles (isomorphic-git)", () => {
  const tracked = (dir: string) => Effect.runPromise(Effect.either(Effect.flatMap(GitHistory, (h) => h.trackedFiles(dir)).pipe(Effect.provide(GitHistoryIsomorphic))))

  it("lists the index's paths, sorted, from any folder of the work tree; untracked files are not in it", async () => {
    const { home, repo } = history()
    fs.writeFileSync(path.join(repo.dir, "untracked.txt"), "x")
    const before = treeDigest(repo.dir)
    const result = await tracked(path.join(repo.dir, "src"))
    expect(Either.isRight(result) ? result.right : result.left).toEqual({ root: repo.dir, files: ["README.md", "src/api/users.ts", "src/db/lock.ts"] })
    expect(treeDigest(repo.dir)).toBe(before)
    void home
  })

  it("outside a work tree it is refused", async () => {
    const result = await tracked(temp())
    expect(Either.isLeft(result) ? result.left : undefined).toMatchObject({ _tag: "GitHistoryUnreadable", reason: "not inside a git work tree" })
  })
})

describe("GitHistory.workingChanges (isomorphic-git)", () => {
  const changes = (dir: string) => Effect.runPromise(Effect.either(Effect.flatMap(GitHistory, (h) => h.workingChanges(dir)).pipe(Effect.provide(GitHistoryIsomorphic))))

  it("modified, deleted, staged and untracked files against HEAD, honouring .gitignore; the repository is not written (not even the index)", async () => {
    const { home, repo } = history()
    fs.writeFileSync(path.join(repo.dir, "README.md"), "changed")
    fs.rmSync(path.join(repo.dir, "src/api/users.ts"))
    fs.writeFileSync(path.join(repo.dir, "new.md"), "x")
    fs.writeFileSync(path.join(repo.dir, ".gitignore"), "build/\n")
    fs.mkdirSync(path.join(repo.dir, "build"))
    fs.writeFileSync(path.join(repo.dir, "build/out.js"), "x")
    fs.writeFileSync(path.join(repo.dir, "staged.md"), "x")
    gitAt(repo.dir, home, undefined, "add", "staged.md")
    const before = treeDigest(repo.dir)
    const result = await changes(path.join(repo.dir, "src"))
    expect(Either.isRight(result) ? result.right : result.left).toEqual({
      root: repo.dir,
      head: gitAt(repo.dir, home, undefined, "rev-parse", "HEAD").trim(),
      changes: [
        { path: ".gitignore", status: "untracked" },
        { path: "README.md", status: "modified" },
        { path: "new.md", status: "untracked" },
        { path: "src/api/users.ts", status: "deleted" },
        { path: "staged.md", status: "added" }
      ]
    })
    expect(treeDigest(repo.dir)).toBe(before)
  })

  it("a file touched but not changed is not a change; one changed to other bytes of the same size is", async () => {
    const { home, repo } = history()
    gitAt(repo.dir, home, undefined, "status", "--short")
    const readme = path.join(repo.dir, "README.md")
    const text = fs.readFileSync(readme, "utf8")
    fs.utimesSync(readme, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000))
    const touched = await changes(repo.dir)
    expect(Either.isRight(touched) ? touched.right.changes : touched.left).toEqual([])
    fs.writeFileSync(readme, text.replace(/[a-z]/, (c) => (c === "a" ? "b" : "a")))
    const edited = await changes(repo.dir)
    expect(Either.isRight(edited) ? edited.right.changes : edited.left).toEqual([{ path: "README.md", status: "modified" }])
  })

  it("a clean tree has no changes, on a detached HEAD too", async () => {
    const { home, repo } = history()
    gitAt(repo.dir, home, undefined, "checkout", "-q", "--detach", "HEAD~1")
    const result = await changes(repo.dir)
    expect(Either.isRight(result) ? result.right.changes : result.left).toEqual([])
  })

  it("before the first commit every file is untracked", async () => {
    const home = temp()
    const dir = path.join(home, "fresh")
    fs.mkdirSync(dir)
    gitAt(dir, home, undefined, "init", "-q")
    fs.writeFileSync(path.join(dir, "a.md"), "x")
    const result = await changes(dir)
    expect(Either.isRight(result) ? result.right.changes : result.left).toEqual([{ path: "a.md", status: "untracked" }])
  })
})
