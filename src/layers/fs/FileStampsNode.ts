import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileStamps, type Stamp } from "../../services/FileStamps.js"

/**
 * Synchronous stats on purpose: this walk is the whole cost of a pass whose
 * inputs did not change, and 2,000 stats as separate effects cost several
 * times the system calls themselves. ctime is in the key because no tool can
 * set it: restoring an old mtime still moves it.
 */
const stampOf = (root: string, paths: ReadonlyArray<string>, salt: string): Stamp => {
  const lines: Array<string> = []
  let newest = 0
  const visit = (rel: string): void => {
    let info: fs.BigIntStats
    try {
      info = fs.lstatSync(path.join(root, rel), { bigint: true })
    } catch {
      lines.push(`${rel} -`)
      return
    }
    // A symlink is stamped by what it points at (a record may be one) but never walked into: no cycles.
    if (info.isSymbolicLink()) {
      try {
        info = fs.statSync(path.join(root, rel), { bigint: true })
      } catch {
        lines.push(`${rel} ->`)
        return
      }
      if (info.isDirectory()) {
        lines.push(`${rel} -> ${info.mtimeNs} ${info.ctimeNs} ${info.ino}`)
        return
      }
    } else if (info.isDirectory()) {
      let names: Array<string>
      try {
        names = fs.readdirSync(path.join(root, rel)).sort()
      } catch {
        names = []
      }
      lines.push(`${rel}/ ${names.length}`)
      for (const name of names) visit(`${rel}/${name}`)
      return
    }
    newest = Math.max(newest, Number(info.mtimeMs), Number(info.ctimeMs))
    lines.push(`${rel} ${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}`)
  }
  for (const p of paths) visit(p)
  return { key: createHash("sha256").update(salt).update("\n").update(lines.join("\n")).digest("hex"), newest }
}

export const FileStampsNode = Layer.succeed(FileStamps, FileStamps.of({ stamp: (root, paths, salt) => Effect.sync(() => stampOf(root, paths, salt)) }))
