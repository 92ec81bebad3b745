import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import { MemoryArchive } from "../../services/MemoryArchive.js"

/** The archive in a Map, for tests and the bench's simulation. */
export const makeMemoryArchiveMemory = () => {
  const blobs = new Map<string, Uint8Array>()
  return MemoryArchive.of({
    put: (bytes) =>
      Effect.sync(() => {
        const digest = createHash("sha256").update(bytes).digest("hex")
        if (!blobs.has(digest)) blobs.set(digest, new Uint8Array(bytes))
        return { digest, bytes: bytes.byteLength }
      }),
    read: (digest) => Effect.sync(() => blobs.get(digest)),
    exists: (digest) => Effect.sync(() => blobs.has(digest)),
    remove: (digest) => Effect.sync(() => void blobs.delete(digest))
  })
}

export const MemoryArchiveMemory = Layer.sync(MemoryArchive, makeMemoryArchiveMemory)
