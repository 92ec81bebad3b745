import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Real repositories made with the `git` CLI for tests: no system or global
 * config, HOME in the test's temp dir, no GIT_* variable of the caller (a test
 * started from a git hook must not write into the caller's repository).
 */
export const gitEnv = (home: string): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_"))),
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig-none"),
  GIT_TERMINAL_PROMPT: "0"
})

export const git = (cwd: string, home: string, ...args: ReadonlyArray<string>): string =>
  execFileSync("git", ["-c", "user.name=Akm Test", "-c", "user.email=akm-test@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: gitEnv(home),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()

export interface GitRepo {
  readonly dir: string
  readonly git: (...args: ReadonlyArray<string>) => string
  /** Writes the files (null deletes one), commits everything and returns the new commit's sha. */
  readonly commit: (files: Readonly<Record<string, string | null>>, message?: string) => string
  readonly sha: (ref?: string) => string
}

/** A fresh repository in `dir` on branch main, with a first commit of `files` when given. */
export const makeGitRepo = (dir: string, home: string, files?: Readonly<Record<string, string | null>>): GitRepo => {
  fs.mkdirSync(dir, { recursive: true })
  const run = (...args: ReadonlyArray<string>) => git(dir, home, ...args)
  run("init", "-q")
  const repo: GitRepo = {
    dir,
    git: run,
    commit: (changes, message = "change") => {
      for (const [rel, text] of Object.entries(changes)) {
        const full = path.join(dir, rel)
        if (text === null) fs.rmSync(full, { recursive: true, force: true })
        else {
          fs.mkdirSync(path.dirname(full), { recursive: true })
          fs.writeFileSync(full, text)
        }
      }
      run("add", "-A")
      run("commit", "-q", "--allow-empty", "-m", message)
      return run("rev-parse", "HEAD")
    },
    sha: (ref = "HEAD") => run("rev-parse", `${ref}^{commit}`)
  }
  if (files !== undefined) repo.commit(files, "first")
  return repo
}

/**
 * A digest of a whole folder: every name, type, mode, size, mtime and byte
 * (link targets for symlinks). `{ mtimes: false }` leaves the times out: the
 * same bytes rewritten (git refreshing its index) are the same tree.
 */
export const treeDigest = (root: string, options: { readonly mtimes?: boolean } = {}): string => {
  const hash = createHash("sha256")
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name)
      const stat = fs.lstatSync(full)
      hash.update(`${path.relative(root, full)}\0${stat.mode}\0${stat.size}\0${options.mtimes === false ? "" : stat.mtimeMs}\0`)
      if (stat.isSymbolicLink()) hash.update(fs.readlinkSync(full))
      else if (stat.isDirectory()) walk(full)
      else hash.update(fs.readFileSync(full))
    }
  }
  walk(root)
  return hash.digest("hex")
}
