import { createHash } from "node:crypto"

/**
 * The one SHA-256 helper: 64 lowercase hex digits of the bytes (a string is
 * hashed as its UTF-8 bytes). Several parts hash as their concatenation, so a
 * digest over many pieces needs no concatenated copy.
 */
export const sha256Hex = (data: string | Uint8Array | ReadonlyArray<string | Uint8Array>): string => {
  const hash = createHash("sha256")
  for (const part of typeof data === "string" || data instanceof Uint8Array ? [data] : data) hash.update(part)
  return hash.digest("hex")
}
