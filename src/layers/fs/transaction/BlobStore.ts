import * as fs from "node:fs"
import * as path from "node:path"
import { replaceFile } from "./FileOps.js"
import { isHash, readIfExists, sha256 } from "./Target.js"

/**
 * The content-addressed store of replaced bytes (spec 05 §2 step 7, spec 06
 * §8.5): `$DATA/archive/blobs/sha256/<aa>/<digest>`, files 0600, directories
 * 0700. Writing is idempotent — a blob already present and intact is left —
 * and every read re-verifies the digest, so a damaged blob is never restored.
 * The two-character shard keeps directories small.
 */
export const blobFile = (archiveDir: string, hash: string): string => path.join(archiveDir, "blobs", "sha256", hash.slice(0, 2), hash)

const ensurePrivateDirs = (archiveDir: string, hash: string): void => {
  fs.mkdirSync(path.dirname(archiveDir), { recursive: true })
  let dir = archiveDir
  for (const part of ["", "blobs", "sha256", hash.slice(0, 2)]) {
    dir = part === "" ? dir : path.join(dir, part)
    try {
      fs.mkdirSync(dir, { mode: 0o700 })
      fs.chmodSync(dir, 0o700)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

/** The blob's bytes when the store holds them intact, else undefined. */
export const getBlob = (archiveDir: string, hash: string): Uint8Array | undefined => {
  if (!isHash(hash)) return undefined
  const bytes = readIfExists(blobFile(archiveDir, hash))
  return bytes !== undefined && sha256(bytes) === hash ? bytes : undefined
}

/** Stores bytes (durably) and returns their sha256. */
export const putBlob = (archiveDir: string, bytes: Uint8Array): string => {
  const hash = sha256(bytes)
  if (getBlob(archiveDir, hash) !== undefined) return hash
  ensurePrivateDirs(archiveDir, hash)
  const file = blobFile(archiveDir, hash)
  replaceFile(`${file}.${process.pid}.tmp`, file, bytes, 0o600)
  return hash
}

/** Removes temp files a crashed store left in the shards of these blobs. */
export const sweepBlobTemps = (archiveDir: string, hashes: ReadonlyArray<string>): void => {
  for (const shard of new Set(hashes.filter(isHash).map((h) => path.dirname(blobFile(archiveDir, h))))) {
    let names: Array<string>
    try {
      names = fs.readdirSync(shard)
    } catch {
      continue
    }
    for (const name of names) if (name.endsWith(".tmp")) fs.rmSync(path.join(shard, name), { force: true })
  }
}
