import * as fs from "node:fs"
import * as path from "node:path"
import * as git from "isomorphic-git"

/**
 * Exact-path git commits (spec 05 §2 step 11, spec 00 §4.2): a commit holding
 * HEAD's tree with only the given paths replaced by their bytes on disk (or
 * removed when the file is gone). The tree is built from blobs and trees with
 * isomorphic-git's object API, so whatever else is dirty or staged never gets
 * in; `git commit` would take the whole index. The index entries of the
 * committed paths are brought up to date only where they still matched the
 * old HEAD, so `git status` stays clean for them and a user's own staging
 * survives.
 */

export interface ExactPathCommit {
  readonly sha: string
  /** Repository-relative paths the commit changed. */
  readonly paths: ReadonlyArray<string>
}

/** The commit message trailer that names the transaction of an akm commit; `akm sync` recognises akm's own commits by it. */
export const AKM_TRAILER = "Akm-Transaction"

const DEFAULT_AUTHOR = { name: "akm", email: "akm@localhost" }

/** The repository's top directory containing `dir`, or undefined when it is not inside one. */
export const findRepository = async (dir: string): Promise<string | undefined> => {
  try {
    return await git.findRoot({ fs, filepath: dir })
  } catch {
    return undefined
  }
}

const resolveOrUndefined = async (dir: string, ref: string, depth?: number): Promise<string | undefined> => {
  try {
    return await git.resolveRef({ fs, dir, ref, ...(depth === undefined ? {} : { depth }) })
  } catch (error) {
    if ((error as { code?: string }).code === "NotFoundError") return undefined
    throw error
  }
}

/** null = remove the entry. */
type Edit = { readonly bytes: Uint8Array; readonly mode: string } | null

/** Rewrites one tree with the edits below it; undefined when the result is empty. */
const editTree = async (dir: string, oid: string | undefined, edits: ReadonlyMap<string, Edit>): Promise<string | undefined> => {
  const entries = new Map<string, git.TreeEntry>()
  if (oid !== undefined) for (const entry of (await git.readTree({ fs, dir, oid })).tree) entries.set(entry.path, entry)
  const below = new Map<string, Map<string, Edit>>()
  for (const [relative, edit] of edits) {
    const slash = relative.indexOf("/")
    if (slash === -1) {
      if (edit === null) entries.delete(relative)
      else entries.set(relative, { mode: edit.mode, path: relative, oid: await git.writeBlob({ fs, dir, blob: edit.bytes }), type: "blob" })
      continue
    }
    const head = relative.slice(0, slash)
    const nested = below.get(head) ?? new Map<string, Edit>()
    nested.set(relative.slice(slash + 1), edit)
    below.set(head, nested)
  }
  for (const [name, nested] of below) {
    const existing = entries.get(name)
    const child = await editTree(dir, existing?.type === "tree" ? existing.oid : undefined, nested)
    if (child === undefined) {
      if (existing?.type === "tree") entries.delete(name)
    } else entries.set(name, { mode: "040000", path: name, oid: child, type: "tree" })
  }
  if (entries.size === 0 && oid !== undefined) return undefined
  return git.writeTree({ fs, dir, tree: [...entries.values()] })
}

/** The commit's author and committer; `at` is the caller's Clock time (epoch milliseconds). */
const author = async (dir: string, at: number) => {
  const read = async (key: string): Promise<string | undefined> => {
    try {
      const value: unknown = await git.getConfig({ fs, dir, path: key })
      return typeof value === "string" && value !== "" ? value : undefined
    } catch {
      return undefined
    }
  }
  const now = new Date(at)
  return {
    name: (await read("user.name")) ?? DEFAULT_AUTHOR.name,
    email: (await read("user.email")) ?? DEFAULT_AUTHOR.email,
    timestamp: Math.floor(now.getTime() / 1000),
    timezoneOffset: now.getTimezoneOffset()
  }
}

/**
 * Commits exactly `paths` (relative to `root`, which lies inside a
 * repository) as they are on disk now. Returns undefined when HEAD already
 * holds those bytes — so a commit interrupted by a crash is made once, never
 * twice, when recovery runs it again.
 */
export const commitExactPaths = async (root: string, paths: ReadonlyArray<string>, message: string, at: number): Promise<ExactPathCommit | undefined> => {
  const dir = await findRepository(root)
  if (dir === undefined) throw new Error(`${root} is not inside a git repository`)
  const prefix = path.relative(fs.realpathSync(dir), fs.realpathSync(root)).split(path.sep).filter((s) => s !== "").join("/")
  const candidates = paths.map((p) => (prefix === "" ? p : `${prefix}/${p}`))
  // Rows before the commit: [path, HEAD, WORKDIR, STAGE]; HEAD 1 = tracked, STAGE 1 = same as HEAD, 0 = absent.
  const rows = new Map((await git.statusMatrix({ fs, dir, filepaths: candidates, ignored: true })).map((row) => [row[0], row] as const))
  const repoPaths: Array<string> = []
  for (const p of candidates) {
    // An untracked file the repository ignores stays out, as `git add` would keep it out.
    if (rows.get(p)?.[1] === 1 || !(await git.isIgnored({ fs, dir, filepath: p }))) repoPaths.push(p)
  }
  if (repoPaths.length === 0) return undefined
  const indexMatchedHead = new Set(repoPaths.filter((p) => {
    const row = rows.get(p)
    return row === undefined || (row[1] === 1 && row[3] === 1) || (row[1] === 0 && row[3] === 0)
  }))

  // The branch HEAD names (undefined when detached): the commit moves the branch, never detaches HEAD.
  const branch = await git.currentBranch({ fs, dir, fullname: true }).catch(() => undefined)
  const target = typeof branch === "string" && branch.startsWith("refs/") ? branch : "HEAD"
  for (let attempt = 0; attempt < 3; attempt++) {
    const parent = await resolveOrUndefined(dir, "HEAD")
    const baseTree = parent === undefined ? undefined : (await git.readCommit({ fs, dir, oid: parent })).commit.tree
    const edits = new Map<string, Edit>()
    for (const p of repoPaths) {
      const file = path.join(dir, ...p.split("/"))
      let stat: fs.Stats | undefined
      try {
        stat = fs.lstatSync(file)
      } catch {
        stat = undefined
      }
      edits.set(p, stat?.isFile() === true ? { bytes: fs.readFileSync(file), mode: (stat.mode & 0o111) !== 0 ? "100755" : "100644" } : null)
    }
    const tree = (await editTree(dir, baseTree, edits)) ?? (await git.writeTree({ fs, dir, tree: [] }))
    if (tree === baseTree) return undefined
    const person = await author(dir, at)
    const sha = await git.writeCommit({ fs, dir, commit: { message: message.endsWith("\n") ? message : `${message}\n`, tree, parent: parent === undefined ? [] : [parent], author: person, committer: person } })
    // Someone committed meanwhile: build again on their commit instead of dropping it.
    if ((await resolveOrUndefined(dir, "HEAD")) !== parent) continue
    await git.writeRef({ fs, dir, ref: target, value: sha, force: true })
    for (const p of repoPaths) {
      if (!indexMatchedHead.has(p)) continue
      const present = edits.get(p) !== null
      await git.updateIndex({ fs, dir, filepath: p, ...(present ? { add: true } : { remove: true, force: true }) })
    }
    return { sha, paths: repoPaths }
  }
  throw new Error("HEAD kept moving while akm was committing; commit the changed files yourself")
}
