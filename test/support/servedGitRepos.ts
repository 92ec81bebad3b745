import * as fs from "node:fs"
import * as path from "node:path"
import { startGitHttpServer, type GitHttpServer } from "./gitHttpServer.js"
import { git, makeGitRepo, treeDigest } from "./gitRepo.js"

/**
 * Shared repositories served over smart HTTP for the sync tests: a temp root
 * with a git HOME, a folder of bare repositories behind a real
 * `git http-backend` server on 127.0.0.1 (pushes allowed), and checkouts
 * whose origin is the http URL.
 */
export interface ServedGitRepos {
  readonly root: string
  /** HOME for every git command of the test. */
  readonly home: string
  /** The folder the server serves (`<name>.git` below it). */
  readonly served: string
  readonly server: GitHttpServer
  /** A bare repository `<name>.git`, served, whose one commit holds `files`. */
  readonly shared: (name: string, files: Readonly<Record<string, string>>) => { readonly bare: string; readonly url: string }
  /** A clone of `bare` at `dir` whose origin is `url`. */
  readonly checkout: (bare: string, dir: string, url: string) => string
  /** Stops the server and removes the root. */
  readonly stop: () => Promise<void>
}

export const servedGitRepos = async (prefix: string): Promise<ServedGitRepos> => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", prefix)))
  const home = path.join(root, "git-home")
  const served = path.join(root, "served")
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(served, { recursive: true })
  const server = await startGitHttpServer(served, home, { receivePack: true })
  return {
    root,
    home,
    served,
    server,
    shared: (name, files) => {
      const seed = makeGitRepo(path.join(root, "seeds", name), home, files)
      const bare = path.join(served, `${name}.git`)
      git(root, home, "clone", "-q", "--bare", seed.dir, bare)
      return { bare, url: server.url(`${name}.git`) }
    },
    checkout: (bare, dir, url) => {
      git(root, home, "clone", "-q", bare, dir)
      git(dir, home, "remote", "set-url", "origin", url)
      return dir
    },
    stop: async () => {
      await server.stop()
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
}

/** Every file below `dir` (work tree and .git: objects, refs, index, HEAD) with its bytes and mode, times left out. */
export const checkoutDigest = (dir: string): string => treeDigest(dir, { mtimes: false })
