/**
 * One path's mutation with its expected before-hash (spec 05 §1). Every write
 * akm makes is a set of these, applied by the one transaction engine.
 */
export interface FileChange {
  readonly bundle: string
  /** Bundle-relative, POSIX separators, NFC. */
  readonly path: string
  /** sha256 (hex) of the current bytes; null = the path must not exist yet. */
  readonly beforeHash: string | null
  /** New bytes; absent with delete. */
  readonly after?: string | Uint8Array
  readonly delete?: true
  readonly mode?: number
}
