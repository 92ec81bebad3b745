import { createHmac } from "node:crypto"
import type { Brand } from "effect"

/**
 * The one redactor (spec 08 §2.1): secret values known from `.env*` files and
 * secret items, and secret-shaped patterns, become `[redacted:<kind>]` before
 * any write. Pure and synchronous, so it also runs where no Effect does (CLI
 * error rendering); the Redactor service adds the stored values and config.
 */

/** Text that has passed the redactor. Sinks that persist or print accept only this, so a raw string does not compile there. */
export type Redacted = string & Brand.Brand<"akm/Redacted">

export type RedactionKind =
  | "env"
  | "private-key"
  | "jwt"
  | "aws-access-key"
  | "aws-secret-key"
  | "github-token"
  | "slack-token"
  | "slack-webhook"
  | "openai-key"
  | "anthropic-key"
  | "google-api-key"
  | "stripe-key"
  | "connection-string"
  | "bearer"
  | "basic-auth"
  | "secret"
  | "high-entropy"

export const placeholder = (kind: RedactionKind): string => `[redacted:${kind}]`

/** Values shorter than this are neither stored nor matched (too many innocent collisions). */
export const MIN_VALUE_LENGTH = 8

// --- known values: HMAC digests, never the values -------------------------------------------

/** What state.db keeps per secret value: its keyed digest, its length (UTF-16 units) and a 16-bit keyed prefilter tag. */
export interface ValueDigest {
  readonly hmac: string
  readonly length: number
  readonly tag: number
}

/**
 * The redactor key (32 random bytes from `redactor.key`), with the two seeds
 * of the prefilter derived from it. HMAC-SHA256 per text window is far too slow
 * for 20 MB/s, so every position is first screened by a cheap keyed 16-bit tag
 * of its first 4 characters; only tag hits pay for an HMAC. The tag is keyed
 * (useless without the key file) and reveals at most 16 bits of a value's first
 * 4 characters to someone who also holds the key — who could test guesses
 * against the HMAC anyway.
 */
export interface ValueKey {
  readonly hmac: (text: string) => string
  readonly k0: number
  readonly k1: number
}

export const valueKey = (key: Uint8Array): ValueKey => {
  const seeds = createHmac("sha256", key).update("akm-redactor-prefilter/1").digest()
  return {
    hmac: (text) => createHmac("sha256", key).update(text, "utf8").digest("hex"),
    k0: seeds.readUInt32LE(0) | 0,
    k1: seeds.readUInt32LE(4) | 0
  }
}

/** The keyed prefilter tag of the 4 UTF-16 units at `start` (the caller guarantees 4 are there). */
const prefixTag = (k0: number, k1: number, text: string, start: number): number => {
  let h = Math.imul(k0 ^ (text.charCodeAt(start) | (text.charCodeAt(start + 1) << 16)), 0x9e3779b1)
  h = Math.imul(h ^ (h >>> 15) ^ (text.charCodeAt(start + 2) | (text.charCodeAt(start + 3) << 16)), 0x85ebca77)
  h = Math.imul(h ^ (h >>> 13) ^ k1, 0xc2b2ae3d)
  return (h ^ (h >>> 16)) & 0xffff
}

export const digestValue = (key: ValueKey, value: string): ValueDigest => ({
  hmac: key.hmac(value),
  length: value.length,
  tag: prefixTag(key.k0, key.k1, value, 0)
})

/** Stored digests ready for matching: a 64 Ki-bit tag bitmap, and per tag the lengths (longest first) with their HMACs. */
export interface ValueSet {
  readonly key: ValueKey
  readonly bitmap: Uint32Array
  readonly byTag: ReadonlyMap<number, ReadonlyArray<{ readonly length: number; readonly hmacs: ReadonlySet<string> }>>
  readonly size: number
}

export const valueSet = (key: ValueKey, digests: Iterable<ValueDigest>): ValueSet => {
  const bitmap = new Uint32Array(2048)
  const grouped = new Map<number, Map<number, Set<string>>>()
  let size = 0
  for (const d of digests) {
    if (d.length < MIN_VALUE_LENGTH) continue
    bitmap[d.tag >>> 5]! |= 1 << (d.tag & 31)
    let lengths = grouped.get(d.tag)
    if (lengths === undefined) grouped.set(d.tag, (lengths = new Map()))
    let hmacs = lengths.get(d.length)
    if (hmacs === undefined) lengths.set(d.length, (hmacs = new Set()))
    if (!hmacs.has(d.hmac)) size++
    hmacs.add(d.hmac)
  }
  const byTag = new Map([...grouped].map(([tag, lengths]) => [tag, [...lengths].sort((a, b) => b[0] - a[0]).map(([length, hmacs]) => ({ length, hmacs }))] as const))
  return { key, bitmap, byTag, size }
}

/**
 * Secret values in a dotenv text (`KEY=value`, `export KEY="value"`), quotes
 * and inline comments of unquoted values removed; only values of 8+ characters.
 */
export const envValues = (text: string): ReadonlyArray<string> => {
  const values: Array<string> = []
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    const match = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*[=:]\s*(.*)$/.exec(line)
    if (match === null) continue
    const raw = match[1]!.trim()
    const quote = raw[0]
    let value: string
    if (quote === "\"" || quote === "'" || quote === "`") {
      const end = raw.lastIndexOf(quote)
      value = end > 0 ? raw.slice(1, end) : raw.slice(1)
    } else {
      value = raw.replace(/\s+#.*$/, "").trim()
    }
    if (value.length >= MIN_VALUE_LENGTH) values.push(value)
  }
  return values
}

/** Secret values in a secret item's file: the whole trimmed text and each of its lines (8+ characters). */
export const secretValues = (text: string): ReadonlyArray<string> => {
  const whole = text.replace(/\r\n?/g, "\n").trim()
  const lines = whole.split("\n").map((line) => line.trim())
  return [...new Set([whole, ...lines])].filter((value) => value.length >= MIN_VALUE_LENGTH)
}

// --- the allow-list ------------------------------------------------------------------------

/**
 * akm's own identifiers and other public shapes, never redacted by a heuristic:
 * SRI strings, uuids, 40/64-hex digests (git object ids, sha256), ISO
 * timestamps, semver versions, ledger fingerprints (`slug-<12 hex>`) and refs (`bundle//id`).
 */
const ALLOW = new RegExp([
  String.raw`sha(?:256|384|512)-[A-Za-z0-9+/]{16,}={0,2}`,
  String.raw`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`,
  String.raw`\b(?:[0-9a-f]{64}|[0-9a-f]{40}|[0-9A-F]{64}|[0-9A-F]{40})\b`,
  String.raw`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`,
  String.raw`\bv?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`,
  // Bounded repeats: a long kebab-case or dotted run must not make these quadratic.
  String.raw`\b[a-z0-9][a-z0-9-]{0,63}-[0-9a-f]{12}\b`,
  String.raw`\b[a-z0-9][a-z0-9._-]{0,63}//[A-Za-z0-9._~/-]+`
].join("|"), "g")

const ALLOW_WHOLE = new RegExp(`^(?:${ALLOW.source})$`)

/** Whether the whole string is an allow-listed shape (akm ids, digests, uuids, SRI, timestamps, versions). */
export const isAllowListed = (text: string): boolean => ALLOW_WHOLE.test(text)

const HEX_DIGEST = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9A-F]{40}|[0-9A-F]{64})$/

// --- detectors ------------------------------------------------------------------------------

interface Hit {
  start: number
  end: number
  kind: RedactionKind
  /** Higher wins the kind when hits overlap. */
  rank: number
  /** A value declared secret (known env value, assigned to a secret name): the shape allow-list does not spare it. */
  declared: boolean
}

interface Pattern {
  readonly kind: RedactionKind
  readonly regex: RegExp
  /** Capture group holding the secret; 0 = the whole match. */
  readonly group: number
  readonly rank: number
  readonly accept?: (value: string) => boolean
}

/** A token that looks like a credential rather than a word: has a digit, or mixes upper and lower case. */
const tokenLike = (value: string): boolean => /\d/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value) && value.length >= 20)

const PATTERNS: ReadonlyArray<Pattern> = [
  { kind: "private-key", rank: 90, group: 0, regex: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: "jwt", rank: 80, group: 0, regex: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "aws-access-key", rank: 80, group: 0, regex: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { kind: "aws-secret-key", rank: 80, group: 1, regex: /aws_?secret_?(?:access_?)?key["']?\s*[=:]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi },
  { kind: "github-token", rank: 80, group: 0, regex: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: "slack-token", rank: 80, group: 0, regex: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { kind: "slack-webhook", rank: 80, group: 0, regex: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,}/g },
  { kind: "anthropic-key", rank: 85, group: 0, regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", rank: 80, group: 0, regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "google-api-key", rank: 80, group: 0, regex: /\bAIza[0-9A-Za-z_-]{30,}/g },
  { kind: "stripe-key", rank: 80, group: 0, regex: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { kind: "bearer", rank: 60, group: 1, regex: /\bBearer\s+([A-Za-z0-9._~+/-]{8,}=*)/gi, accept: tokenLike },
  { kind: "basic-auth", rank: 60, group: 1, regex: /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g, accept: tokenLike }
]

const KEY_WORD = /secret|token|passw(?:or)?d|api_?key/gi
const KEY_CHAR = new Uint8Array(128)
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") KEY_CHAR[c.charCodeAt(0)] = 1
const isKeyChar = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i)
  return c < 128 && KEY_CHAR[c] === 1
}
const AFTER_KEY = /["']?[ \t]*(?::=|=>|[=:])[ \t]*/y
const CODE_WORDS = new Set(["undefined", "null", "true", "false", "string", "number", "boolean", "required", "optional", "redacted"])

/** A key name that names a secret: `GITHUB_TOKEN`, `client_secret`, `accessToken`, `db.password` — not `tokenizer`. */
const secretKeyName = (name: string): boolean => {
  if (!/[a-z]/.test(name) && /SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY/.test(name)) return true
  const parts = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[\s_.-]+/)
  return parts.some((part, i) =>
    ["secret", "secrets", "token", "tokens", "password", "passwd", "apikey"].includes(part) || (part === "api" && parts[i + 1] === "key"))
}

/** An unquoted assigned value that is code, a reference or a word, not a literal secret. */
const notALiteral = (value: string, separator: string): boolean =>
  /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || // config.password, process.env.TOKEN
  /^(?:env|secret):/.test(value) || // credential references (spec 01 §6)
  /^\$/.test(value) || // $VAR, ${VAR}
  /^https?:\/\//.test(value) ||
  CODE_WORDS.has(value.toLowerCase()) ||
  /^[A-Za-z]+$/.test(value) && (/[A-Z]/.test(value.slice(1)) || /^[A-Z]/.test(value) || separator.includes(":"))

/** `KEY=value` / `"key": "value"` where the key names a secret: the value (8+ characters) is redacted, the key kept. */
const assignedSecrets = (text: string, hits: Array<Hit>): void => {
  KEY_WORD.lastIndex = 0
  let lastKeyEnd = -1
  for (let m = KEY_WORD.exec(text); m !== null; m = KEY_WORD.exec(text)) {
    let start = m.index
    let end = m.index + m[0].length
    if (end <= lastKeyEnd) continue
    while (start > 0 && isKeyChar(text, start - 1)) start--
    while (end < text.length && isKeyChar(text, end)) end++
    lastKeyEnd = end
    KEY_WORD.lastIndex = end
    // The cheap test first: prose says "token" far more often than it assigns one.
    AFTER_KEY.lastIndex = end
    const sep = AFTER_KEY.exec(text)
    if (sep === null || !secretKeyName(text.slice(start, end))) continue
    let from = end + sep[0].length
    const quote = text[from]
    let to: number
    if (quote === "\"" || quote === "'" || quote === "`") {
      from++
      to = text.indexOf(quote, from)
      // An unclosed quote on this line is no value; the next line may hold a key of its own.
      if (to < 0 || text.slice(from, to).includes("\n")) continue
      // The value is consumed: a keyword inside it is not another key (keeps the scan linear).
      KEY_WORD.lastIndex = lastKeyEnd = Math.max(end, to)
    } else {
      to = from
      while (to < text.length && !/[\s"'`,;(){}<>[\]]/.test(text[to]!)) to++
      KEY_WORD.lastIndex = lastKeyEnd = Math.max(end, to)
      if (text[to] === "(") continue
      if (notALiteral(text.slice(from, to), sep[0])) continue
    }
    const value = text.slice(from, to)
    if (value.length < MIN_VALUE_LENGTH || value.startsWith("[redacted:")) continue
    // A uuid, version or timestamp under a secret name stays; a hex string there is a secret, not a digest.
    if (isAllowListed(value) && !HEX_DIGEST.test(value)) continue
    hits.push({ start: from, end: to, kind: "secret", rank: 50, declared: true })
  }
}

/** `scheme://user:password@`: the password goes, scheme and user stay. Found from the literal `://` (a regex led by the scheme is slow on prose). */
const USER_PASSWORD = /[^\s:/@'"`]+:([^\s@/'"`]+)@/y
const connectionStrings = (text: string, hits: Array<Hit>): void => {
  for (let i = text.indexOf("://"); i >= 0; i = text.indexOf("://", i + 3)) {
    if (i === 0 || !/[A-Za-z0-9+.-]/.test(text[i - 1]!)) continue
    USER_PASSWORD.lastIndex = i + 3
    const m = USER_PASSWORD.exec(text)
    if (m === null || m[1]!.startsWith("[redacted:")) continue
    const start = i + 3 + m[0].length - 1 - m[1]!.length
    hits.push({ start, end: start + m[1]!.length, kind: "connection-string", rank: 70, declared: false })
  }
}

/** Characters of a high-entropy token: base64/base64url alphabet without the padding. */
const TOKEN_CHAR = new Uint8Array(128)
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") TOKEN_CHAR[c.charCodeAt(0)] = 1
const isTokenChar = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i)
  return c < 128 && TOKEN_CHAR[c] === 1
}
const MIN_TOKEN = 20

/** Shannon entropy (bits per character) of a string. */
const entropy = (value: string): number => {
  const counts = new Map<string, number>()
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) {
    const p = n / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/**
 * A long random-looking token: ≥ 20 characters, not pure hex (digests), at
 * least two of upper/lower/digit, and character classes switching as often as
 * random text does (camelCase identifiers and words switch rarely).
 */
export const looksRandom = (token: string): boolean => {
  const body = token.replace(/=+$/, "")
  if (body.length < 20 || /^[0-9a-fA-F]+$/.test(body)) return false
  let classes = 0
  let previous = -1
  let switches = 0
  let alnum = 0
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    const cls = c >= 48 && c <= 57 ? 0 : c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : -1
    if (cls < 0) continue
    classes |= 1 << cls
    if (previous >= 0 && cls !== previous) switches++
    previous = cls
    alnum++
  }
  const kinds = (classes & 1) + ((classes >> 1) & 1) + ((classes >> 2) & 1)
  if (kinds < 2 || alnum < 20) return false
  if (switches / alnum < 0.3) return false
  // camelCase identifiers spend most characters in lower-case words; random text rarely has 3 lower-case letters in a row.
  let wordish = 0
  for (const run of body.match(/[a-z]{3,}/g) ?? []) wordish += run.length
  if (wordish / alnum >= 0.45) return false
  return entropy(body) >= 3.5
}

/**
 * A file path (`/tmp/x-Ab12cd/…`, `~/…`, `./…`, the rest of `/home/me/.cache/…`):
 * a run that starts with a slash or follows `~` or `.`, with at least two slashes. Judged as a whole, the folder
 * names temp directories get (`akm-test-7755-E4WdVC`) make any absolute path
 * look random; a path is judged segment by segment instead.
 */
const isPathLike = (text: string, start: number, end: number): boolean => {
  // A run starts after a character outside the token alphabet: `~/x`, `./x`, `.cache/x` (a dot-folder) and `/x` qualify.
  const before = start > 0 ? text[start - 1] : undefined
  if (text[start] !== "/" && before !== "." && before !== "~") return false
  let slashes = 0
  for (let i = start; i < end && slashes < 2; i++) if (text[i] === "/") slashes++
  return slashes >= 2
}

/** The random-looking segments (20+ token characters) of a path run, each a hit of its own. */
const pathSegments = (text: string, start: number, end: number, hits: Array<Hit>): void => {
  let from = start
  for (let i = start; i <= end; i++) {
    if (i < end && text[i] !== "/") continue
    if (i - from >= MIN_TOKEN && looksRandom(text.slice(from, i))) hits.push({ start: from, end: i, kind: "high-entropy", rank: 10, declared: false })
    from = i + 1
  }
}

/**
 * Runs of 20+ token characters, found by probing 20 characters ahead (most
 * prose is rejected one probe per word), each judged by `looksRandom`.
 * Invariant: `j` starts a run (it is 0 or follows a non-token character).
 */
const highEntropy = (text: string, hits: Array<Hit>): void => {
  const n = text.length
  let j = 0
  while (j + MIN_TOKEN <= n) {
    if (!isTokenChar(text, j + MIN_TOKEN - 1)) {
      j += MIN_TOKEN
      continue
    }
    let k = j + MIN_TOKEN - 2
    while (k >= j && isTokenChar(text, k)) k--
    if (k >= j) {
      j = k + 1
      continue
    }
    let end = j + MIN_TOKEN
    while (end < n && isTokenChar(text, end)) end++
    let padded = end
    while (padded < n && padded - end < 2 && text[padded] === "=") padded++
    if (isPathLike(text, j, end)) pathSegments(text, j, end, hits)
    else if (looksRandom(text.slice(j, padded))) hits.push({ start: j, end: padded, kind: "high-entropy", rank: 10, declared: false })
    j = end + 1
  }
}

/** Known values: every position is screened by its prefilter tag; a hit is confirmed by HMAC (leftmost, longest). */
const knownValues = (text: string, values: ValueSet, hits: Array<Hit>): void => {
  if (values.size === 0) return
  const { key, bitmap, byTag } = values
  const { k0, k1 } = key
  const last = text.length - MIN_VALUE_LENGTH
  for (let s = 0; s <= last; s++) {
    // Stored values are trimmed, so none starts with a space or a line break.
    const c = text.charCodeAt(s)
    if (c === 32 || c === 10) continue
    const tag = prefixTag(k0, k1, text, s)
    if ((bitmap[tag >>> 5]! & (1 << (tag & 31))) === 0) continue
    for (const { length, hmacs } of byTag.get(tag) ?? []) {
      if (s + length > text.length) continue
      if (hmacs.has(key.hmac(text.slice(s, s + length)))) {
        hits.push({ start: s, end: s + length, kind: "env", rank: 40, declared: true })
        s += length - 1
        break
      }
    }
  }
}

/** Ranges of `regex` matches (global) in text. */
const ranges = (regex: RegExp, text: string, out: Array<readonly [number, number]>): void => {
  regex.lastIndex = 0
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    if (m[0].length === 0) {
      regex.lastIndex++
      continue
    }
    out.push([m.index, m.index + m[0].length])
  }
}

const inside = (hit: Hit, protectedRanges: ReadonlyArray<readonly [number, number]>): boolean =>
  protectedRanges.some(([start, end]) => start <= hit.start && hit.end <= end)

export interface RedactOptions {
  /** Digests of known secret values (stored at index time). */
  readonly values?: ValueSet | undefined
  /** A project's `sensitive.allow` strings: never redacted, whatever matches inside them. */
  readonly allow?: ReadonlyArray<string> | undefined
}

/**
 * Redacts text: known values → `[redacted:env]`, patterns →
 * `[redacted:<kind>]` (assignments, bearer headers and connection strings keep
 * their key, scheme and user). Overlapping hits merge into one placeholder so
 * no fragment of a secret survives. Idempotent: a pass that changed the text
 * runs again, since what is left beside a placeholder is judged on its own
 * (the tail of a key glued to a token can look random once the key is gone).
 */
export const redact = (text: string, options: RedactOptions = {}): Redacted => {
  let current = text
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = redactOnce(current, options)
    if (next === current) break
    current = next
  }
  return current as Redacted
}

const MAX_PASSES = 8

const redactOnce = (text: string, options: RedactOptions): string => {
  const hits: Array<Hit> = []
  for (const pattern of PATTERNS) {
    const regex = pattern.regex
    regex.lastIndex = 0
    for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
      if (m[0].length === 0) {
        regex.lastIndex++
        continue
      }
      const value = m[pattern.group]
      if (value === undefined || (pattern.accept !== undefined && !pattern.accept(value))) continue
      const start = pattern.group === 0 ? m.index : m.index + m[0].lastIndexOf(value)
      hits.push({ start, end: start + value.length, kind: pattern.kind, rank: pattern.rank, declared: false })
    }
  }
  connectionStrings(text, hits)
  assignedSecrets(text, hits)
  highEntropy(text, hits)
  if (options.values !== undefined) knownValues(text, options.values, hits)
  if (hits.length === 0) return text

  const shapes: Array<readonly [number, number]> = []
  ranges(ALLOW, text, shapes)
  const allowed: Array<readonly [number, number]> = []
  for (const s of options.allow ?? []) {
    if (s === "") continue
    for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) allowed.push([i, i + s.length])
  }
  const kept = hits.filter((hit) => !inside(hit, allowed) && (hit.declared || !inside(hit, shapes)))
  if (kept.length === 0) return text

  kept.sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ""
  let at = 0
  let current: Hit | undefined
  const flush = () => {
    if (current === undefined) return
    out += text.slice(at, current.start) + placeholder(current.kind)
    at = current.end
  }
  for (const hit of kept) {
    if (current !== undefined && hit.start < current.end) {
      current = { ...current, end: Math.max(current.end, hit.end), kind: hit.rank > current.rank ? hit.kind : current.kind, rank: Math.max(hit.rank, current.rank) }
      continue
    }
    flush()
    current = hit
  }
  flush()
  return out + text.slice(at)
}

/** Redacts then caps at `max` characters (stored queries keep at most 1 KiB). A cut never splits a placeholder. */
export const redactCapped = (text: string, max: number, options: RedactOptions = {}): Redacted => capRedacted(redact(text, options), max)

/** Caps redacted text at `max` characters; a cut never splits a placeholder. */
export const capRedacted = (redacted: Redacted, max: number): Redacted => {
  if (redacted.length <= max) return redacted
  let cut = redacted.slice(0, max)
  const open = cut.lastIndexOf("[redacted:")
  if (open >= 0 && cut.indexOf("]", open) < 0) cut = cut.slice(0, open)
  return cut as Redacted
}

/** Text already known to be safe (literals, ids akm made itself). Use sparingly: it skips the redactor. */
export const trustedText = (text: string): Redacted => text as Redacted

/** Frontmatter-style fields whose every string (keys kept) has passed the redactor. */
export type RedactedFields = Readonly<Record<string, unknown>> & Brand.Brand<"akm/RedactedFields">

/** Redacts every string value in `fields`, at any depth; keys, numbers and booleans are kept. */
export const redactFields = (fields: Readonly<Record<string, unknown>>, redactText: (text: string) => Redacted): RedactedFields => {
  const walk = (value: unknown): unknown =>
    typeof value === "string"
      ? redactText(value)
      : Array.isArray(value)
      ? value.map(walk)
      : value !== null && typeof value === "object" && !(value instanceof Date)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
      : value
  return walk(fields) as RedactedFields
}
