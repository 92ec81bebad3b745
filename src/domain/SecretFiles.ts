/**
 * Files that hold secrets, known by name alone (R-DB-2, R-RT-7): their bytes
 * never enter an index, a proposal, a diff or any output. Pure: the adapters
 * (what is indexed), the proposal programs (what may be written) and the diff
 * (what may be shown) all ask here.
 */

/** How a secret file may be written: an env file may hold key names (no values); a secret file nothing. */
export type SecretKind = "env" | "secret"

/** `.env`, `.env.*`, `*.env`: env files. */
const ENV_NAME = /^(?:\.env|\.env\..+|.+\.env)$/i

/** Credential files (compared case-insensitively on the base name). */
const SECRET_NAME = /^(?:\.npmrc|\.netrc|\.pgpass|credentials.*|.+\.pem|.+\.key|.+\.p12|.+\.pfx|id_rsa.*|id_ed25519.*|.+\.kdbx|secrets\..+)$/i

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** The kind of a secret file by its name, undefined for an ordinary name. */
export const secretKindOfName = (path: string): SecretKind | undefined => {
  const name = baseName(path)
  return ENV_NAME.test(name) ? "env" : SECRET_NAME.test(name) ? "secret" : undefined
}

/** Adapters whose top-level `env/` and `secrets/` folders hold env files and secrets (spec 03 "akm", "dotenv"). */
const ENV_FOLDER_ADAPTERS = new Set(["akm", "dotenv"])

/**
 * The kind of a bundle-relative path: a secret by name anywhere; in akm and
 * dotenv bundles (or when the adapter is unknown), anything under the
 * top-level `env/` or `secrets/` folders too.
 */
export const secretKindOfPath = (path: string, adapter?: string): SecretKind | undefined => {
  if (adapter === undefined || ENV_FOLDER_ADAPTERS.has(adapter)) {
    if (path.startsWith("secrets/")) return "secret"
    if (path.startsWith("env/")) return "env"
  }
  return secretKindOfName(path)
}

/** A line an env file may carry without a value: blank, a comment, `KEY` or `KEY=` (optionally exported). */
const NO_VALUE_LINE = /^\s*(?:#.*|(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=?\s*)?$/

/** 1-based numbers of the lines that may hold a value (anything that is not blank, a comment or a bare key). */
export const envValueLines = (text: string): ReadonlyArray<number> =>
  text.split(/\r?\n/).flatMap((line, i) => (NO_VALUE_LINE.test(line) ? [] : [i + 1]))
