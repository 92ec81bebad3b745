import * as fs from "node:fs"
import * as path from "node:path"
import { fsyncDirectory } from "../atomicWrite.js"

/**
 * The engine's durable file steps. A write is split in two (temp file
 * fsynced, then renamed over the target and the directory fsynced) so a crash
 * point can sit between them; the temp name comes from the journal, so
 * recovery knows exactly which stray file is the engine's.
 */

/** Writes bytes to a fresh temp file with an exact mode and fsyncs it. */
export const writeTemp = (temp: string, bytes: Uint8Array, mode: number): void => {
  fs.rmSync(temp, { force: true })
  const fd = fs.openSync(temp, "wx", mode)
  try {
    fs.writeFileSync(fd, bytes)
    // The open mode is filtered by the umask; the file's mode must be exact.
    fs.fchmodSync(fd, mode)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Renames the temp file over its target and makes the rename durable. */
export const commitTemp = (temp: string, target: string): void => {
  fs.renameSync(temp, target)
  fsyncDirectory(path.dirname(target))
}

/** Replaces a file atomically: temp + fsync + rename + directory fsync. */
export const replaceFile = (temp: string, target: string, bytes: Uint8Array, mode: number): void => {
  writeTemp(temp, bytes, mode)
  commitTemp(temp, target)
}

export const removeFile = (file: string): void => {
  fs.rmSync(file, { force: true })
  fsyncDirectory(path.dirname(file))
}

/** Creates directories one by one (parents first), each made durable in its parent. */
export const makeDirs = (dirs: ReadonlyArray<string>): void => {
  for (const dir of dirs) {
    try {
      fs.mkdirSync(dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    fsyncDirectory(path.dirname(dir))
  }
}

/** Removes directories deepest first while they are empty; a directory someone filled meanwhile stays. */
export const removeEmptyDirs = (dirs: ReadonlyArray<string>): void => {
  for (const dir of [...dirs].reverse()) {
    try {
      fs.rmdirSync(dir)
      fsyncDirectory(path.dirname(dir))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error
    }
  }
}

/** Writes a small JSON record atomically and durably (journals, leases' neighbours). */
export const writeJsonDurably = (file: string, value: unknown): void => {
  replaceFile(`${file}.tmp`, file, new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`), 0o600)
}
