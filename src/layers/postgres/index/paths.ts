import * as path from "node:path"
import type { IndexDocument } from "../../../domain/IndexDocument.js"

/**
 * Item paths are stored bundle-relative (issue 27 item 6): every akm server
 * mounts a bundle at the same root, recorded once per bundle (idx_bundles.root),
 * so a hit found through one server names a file another can show. A document
 * whose path is its bundle root joined with one of its files is stored as that
 * file; any other path (no root known yet, a root that moved in this run) is
 * kept as given and made relative by the next run.
 */
export const relativeTo = (root: string | undefined, doc: IndexDocument): IndexDocument => {
  if (root === undefined || !path.isAbsolute(doc.path)) return doc
  const relative = path.relative(root, doc.path)
  if (relative.startsWith("..") || path.isAbsolute(relative) || !doc.files.includes(relative.split(path.sep).join("/"))) return doc
  return { ...doc, path: relative.split(path.sep).join("/") }
}

/** A stored path as the reader sees it: under the bundle's root when stored relative. */
export const absoluteFrom = (root: string | null | undefined, stored: string): string =>
  root === null || root === undefined || path.isAbsolute(stored) ? stored : path.join(root, stored)
