import * as fs from "node:fs"
import * as path from "node:path"

/** Writes a file so a reader sees the old or the new bytes, never a torn mix: temp file, fsync, rename, fsync dir. */
export const atomicWriteFileSync = (file: string, data: string | Uint8Array, mode = 0o644): void => {
  const dir = path.dirname(file)
  fs.mkdirSync(dir, { recursive: true })
  // Wall time only makes the temp name unique (with the pid); it is no timestamp anyone reads, so not Clock's.
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`)
  const fd = fs.openSync(temp, "w", mode)
  try {
    fs.writeFileSync(fd, data)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  try {
    fs.renameSync(temp, file)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
  fsyncDirectory(dir)
}

export const fsyncDirectory = (dir: string): void => {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, "r")
    fs.fsyncSync(fd)
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
