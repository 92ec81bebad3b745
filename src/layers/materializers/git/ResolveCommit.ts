import * as git from "isomorphic-git"
import { checkRefName, GitSourceProblem, refNotFound } from "./GitSourceProblem.js"

/** What every read needs: a file system client, the git directory and isomorphic-git's pack cache (shared, so packs are parsed once). */
export interface GitReader {
  readonly fs: git.FsClient
  readonly gitdir: string
  readonly cache: object
}

const isHex = (ref: string) => /^[0-9a-f]{4,40}$/i.test(ref)
const errorCode = (cause: unknown) => (cause as { code?: unknown } | null)?.code

/**
 * The commit a ref names: a branch, a tag (annotated tags are peeled), a full
 * or abbreviated sha; HEAD by default. Names are looked up the way git does
 * (refs/<x>, refs/tags/<x>, refs/heads/<x>, refs/remotes/<x>).
 */
export const resolveCommit = async (repo: GitReader, ref: string | undefined, head?: string): Promise<string> => {
  if (ref !== undefined) checkRefName(ref)
  const wanted = ref ?? head ?? "HEAD"
  const oid = await lookup(repo, wanted).catch(async (cause: unknown) => {
    if (errorCode(cause) === "AmbiguousError") throw new GitSourceProblem(`'${wanted}' matches several objects`, "give more characters of the commit sha")
    if (errorCode(cause) !== "NotFoundError") throw cause
    if (ref === undefined) throw new GitSourceProblem("the repository has no commits yet (HEAD names no commit)", "commit something first, or name a branch with --ref")
    throw refNotFound(ref, await git.listBranches(repo).catch(() => []), await git.listTags(repo).catch(() => []))
  })
  return peelToCommit(repo, oid, wanted)
}

const lookup = async (repo: GitReader, ref: string): Promise<string> => {
  try {
    return await git.resolveRef({ ...repo, ref })
  } catch (cause) {
    if (errorCode(cause) !== "NotFoundError" || !isHex(ref)) throw cause
    return git.expandOid({ ...repo, oid: ref.toLowerCase() })
  }
}

/** Follows annotated tags (possibly nested) down to the commit they name. */
export const peelToCommit = async (repo: GitReader, start: string, label: string): Promise<string> => {
  let oid = start
  for (let hops = 0; hops < 16; hops++) {
    const { type } = await git.readObject({ ...repo, oid, format: "content" }).catch((cause: unknown) => {
      if (errorCode(cause) === "NotFoundError") throw new GitSourceProblem(`'${label}' names the object ${oid}, which the repository does not have`, "give a branch, a tag or the sha of a commit in the repository")
      throw cause
    })
    if (type === "commit") return oid
    if (type !== "tag") throw new GitSourceProblem(`'${label}' names a ${type}, not a commit`, "give a branch, a tag or a commit sha")
    oid = (await git.readTag({ ...repo, oid })).tag.object
  }
  throw new GitSourceProblem(`'${label}' is a chain of too many tags`, "give the commit sha instead")
}

/** The tree of a commit. */
export const commitTree = async (repo: GitReader, commit: string): Promise<string> => (await git.readCommit({ ...repo, oid: commit })).commit.tree
