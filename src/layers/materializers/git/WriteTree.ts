import * as fs from "node:fs"
import * as path from "node:path"
import * as git from "isomorphic-git"
import type { MaterializeDiagnostic } from "../../../services/Materializer.js"
import type { GitReader } from "./ResolveCommit.js"

interface TreeEntry {
  readonly mode: string
  readonly name: string
  readonly oid: string
}

/**
 * Raw tree objects are parsed here rather than by isomorphic-git, which
 * refuses a whole tree when one entry has an unsafe name: akm skips that one
 * entry with a diagnostic and keeps the rest of the bundle.
 */
const parseTree = (buffer: Uint8Array): Array<TreeEntry> => {
  const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  const entries: Array<TreeEntry> = []
  let cursor = 0
  while (cursor < bytes.length) {
    const space = bytes.indexOf(0x20, cursor)
    const nul = bytes.indexOf(0, space + 1)
    if (space === -1 || nul === -1 || nul + 21 > bytes.length) throw new Error("a tree object in the repository is corrupt")
    entries.push({ mode: bytes.toString("latin1", cursor, space), name: bytes.toString("utf8", space + 1, nul), oid: bytes.toString("hex", nul + 1, nul + 21) })
    cursor = nul + 21
  }
  return entries
}

/**
 * Names that must never reach the disk: path syntax (`.`, `..`, `/`, NUL) and
 * anything a file system may fold into `.git` (case, HFS+ ignorable code
 * points, trailing dots and spaces, the 8.3 alias) — a `.git` inside the
 * cache would make git tools treat the copy as a repository with its config.
 */
const unsafeName = (name: string): boolean => {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) return true
  const folded = name.replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, "").toLowerCase().replace(/[. ]+$/, "")
  return folded === ".git" || folded === "" || /^\.?git~\d$/.test(folded)
}

const inside = (root: string, target: string): boolean => {
  const rel = path.relative(root, target)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

const readContent = async (repo: GitReader, oid: string, expected: "tree" | "blob"): Promise<Uint8Array> => {
  const { type, object } = await git.readObject({ ...repo, oid, format: "content" })
  if (type !== expected || !(object instanceof Uint8Array)) throw new Error(`object ${oid} is a ${type}, not a ${expected}`)
  return object
}

export interface WrittenTree {
  readonly files: number
  readonly diagnostics: ReadonlyArray<MaterializeDiagnostic>
}

/**
 * Writes the tree `treeOid` into the empty directory `root`. Every file gets
 * mode 0644 whatever its git mode: akm never runs anything from a bundle
 * (R-BUN-1), so an executable bit would only invite someone else to. Files
 * are created exclusively (`wx`) and symlinks only after all files, so no
 * write ever goes through a link. A symlink is kept only when it resolves
 * inside `root`; submodules are skipped (their commits are not in this
 * repository).
 */
export const writeTree = async (repo: GitReader, treeOid: string, root: string, onFile: (files: number) => void): Promise<WrittenTree> => {
  const diagnostics: Array<MaterializeDiagnostic> = []
  const links: Array<{ rel: string; target: string }> = []
  const skip = (code: string, rel: string, message: string) => diagnostics.push({ code, path: rel, message })
  let files = 0
  const pending: Array<{ oid: string; rel: string }> = [{ oid: treeOid, rel: "" }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const entry of parseTree(await readContent(repo, next.oid, "tree"))) {
      const rel = next.rel === "" ? entry.name : `${next.rel}/${entry.name}`
      if (unsafeName(entry.name)) {
        skip("unsafe-name", rel, `skipped '${rel}': the name is not safe to write to disk`)
        continue
      }
      const full = path.join(root, rel)
      try {
        if (entry.mode === "40000" || entry.mode === "040000") {
          fs.mkdirSync(full, { mode: 0o755 })
          pending.push({ oid: entry.oid, rel })
        } else if (entry.mode === "160000") {
          skip("submodule-skipped", rel, `skipped submodule '${rel}': akm copies only the repository's own files`)
        } else if (entry.mode === "120000") {
          links.push({ rel, target: Buffer.from(await readContent(repo, entry.oid, "blob")).toString("utf8") })
        } else if (entry.mode.startsWith("100")) {
          fs.writeFileSync(full, await readContent(repo, entry.oid, "blob"), { mode: 0o644, flag: "wx" })
          onFile(++files)
        } else {
          skip("unknown-mode", rel, `skipped '${rel}': unknown git mode ${entry.mode}`)
        }
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
        skip("path-collision", rel, `skipped '${rel}': another entry already took that name on this file system`)
      }
    }
  }
  linkInside(root, links, skip)
  return { files, diagnostics }
}

/**
 * Creates the symlinks whose targets stay inside `root`. A target is checked
 * twice: by its text (absolute or `..` beyond the root is refused before
 * anything is created) and, once every link exists, by its real path — a link
 * through another link can leave the root even when its text does not.
 */
const linkInside = (root: string, links: ReadonlyArray<{ rel: string; target: string }>, skip: (code: string, rel: string, message: string) => void): void => {
  // realpathSync.native, not realpathSync: Node's JS version folds `link/..` textually before following the link.
  const realRoot = fs.realpathSync.native(root)
  const escapes = (rel: string) => skip("symlink-escapes", rel, `skipped symlink '${rel}': it points outside the bundle`)
  const created: Array<string> = []
  for (const { rel, target } of links) {
    const full = path.join(root, rel)
    if (target === "" || target.includes("\0") || path.isAbsolute(target) || !inside(root, path.resolve(path.dirname(full), target))) {
      escapes(rel)
      continue
    }
    try {
      fs.symlinkSync(target, full)
      created.push(rel)
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
      skip("path-collision", rel, `skipped symlink '${rel}': another entry already took that name on this file system`)
    }
  }
  const verdicts = created.map((rel) => {
    try {
      return { rel, escapes: !inside(realRoot, fs.realpathSync.native(path.join(root, rel))) }
    } catch {
      return { rel, dangling: true }
    }
  })
  for (const verdict of verdicts) {
    if ("dangling" in verdict) {
      fs.unlinkSync(path.join(root, verdict.rel))
      skip("symlink-dangling", verdict.rel, `skipped symlink '${verdict.rel}': its target does not exist in the bundle`)
    } else if (verdict.escapes) {
      fs.unlinkSync(path.join(root, verdict.rel))
      escapes(verdict.rel)
    }
  }
}
