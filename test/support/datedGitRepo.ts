import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { gitEnv } from "./gitRepo.js"

/**
 * A real repository made with the `git` CLI whose commits carry chosen dates
 * (GIT_AUTHOR_DATE / GIT_COMMITTER_DATE), for history mining tests.
 */
export interface DatedGitRepo {
  readonly dir: string
  readonly git: (...args: ReadonlyArray<string>) => string
  /** Writes the files (null deletes one), commits everything at `date` (ISO) and returns the sha. */
  readonly commit: (date: string, message: string, files: Readonly<Record<string, string | null>>) => string
}

const run = (cwd: string, home: string, args: ReadonlyArray<string>, date?: string): string =>
  execFileSync("git", ["-c", "user.name=Akm Test", "-c", "user.email=akm-test@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: { ...gitEnv(home), ...(date === undefined ? {} : { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }) },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()

export const makeDatedGitRepo = (dir: string, home: string): DatedGitRepo => {
  fs.mkdirSync(dir, { recursive: true })
  run(dir, home, ["init", "-q"])
  return {
    dir,
    git: (...args) => run(dir, home, args),
    commit: (date, message, files) => {
      for (const [rel, text] of Object.entries(files)) {
        const full = path.join(dir, rel)
        if (text === null) fs.rmSync(full, { recursive: true, force: true })
        else {
          fs.mkdirSync(path.dirname(full), { recursive: true })
          fs.writeFileSync(full, text)
        }
      }
      run(dir, home, ["add", "-A"])
      run(dir, home, ["commit", "-q", "--allow-empty", "-m", message], date)
      return run(dir, home, ["rev-parse", "HEAD"])
    }
  }
}

/** `git <args>` in `cwd` with the test environment (a clone, a merge with a date). */
export const gitAt = (cwd: string, home: string, date: string | undefined, ...args: ReadonlyArray<string>): string => run(cwd, home, args, date)
