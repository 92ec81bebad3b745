import { createHash } from "node:crypto"

/**
 * Subresource-integrity checks for npm tarballs (spec 02 §2 npm). Only
 * sha512/sha384/sha256 count: a version published with nothing but a sha1
 * `shasum` (npm < 5, before 2017) is refused rather than trusted on a weak hash.
 */

const STRONG = ["sha512", "sha384", "sha256"] as const
export type StrongAlgorithm = (typeof STRONG)[number]

export interface ExpectedIntegrity {
  readonly algorithm: StrongAlgorithm
  /** Acceptable base64 digests of that algorithm (SRI may list several). */
  readonly digests: ReadonlyArray<string>
}

/** The strongest algorithm an SRI string names, with its digests; undefined when it names no strong one. */
export const expectedIntegrity = (sri: string | undefined): ExpectedIntegrity | undefined => {
  if (sri === undefined) return undefined
  const byAlgorithm = new Map<StrongAlgorithm, Array<string>>()
  for (const token of sri.trim().split(/\s+/)) {
    const match = /^(sha512|sha384|sha256)-([A-Za-z0-9+/]+={0,2})(\?.*)?$/.exec(token)
    if (match === null) continue
    const algorithm = match[1] as StrongAlgorithm
    byAlgorithm.set(algorithm, [...(byAlgorithm.get(algorithm) ?? []), match[2]!])
  }
  const algorithm = STRONG.find((name) => byAlgorithm.has(name))
  return algorithm === undefined ? undefined : { algorithm, digests: byAlgorithm.get(algorithm)! }
}

/** `sha512-<base64>` of the bytes. */
export const integrityOf = (bytes: Uint8Array, algorithm: StrongAlgorithm = "sha512"): string =>
  `${algorithm}-${createHash(algorithm).update(bytes).digest("base64")}`

/** Whether the bytes match; returns the SRI string that matched (to record in the lock). */
export const verifyIntegrity = (bytes: Uint8Array, expected: ExpectedIntegrity): string | undefined => {
  const actual = integrityOf(bytes, expected.algorithm)
  return expected.digests.some((digest) => `${expected.algorithm}-${digest}` === actual) ? actual : undefined
}
