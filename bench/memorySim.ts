// The memory-sim section (issue 23 item 8, spec 06 §8): 10,000 synthetic memories arrive over simulated
// weeks on a test clock, with exact duplicates, expiries, supersessions and paraphrased near-duplicates.
// Each simulated day runs what `akm memory consolidate` and `akm memory purge` decide — the same planner
// (planReduction: deterministic cleanup, then claim-coverage retirement) and the same purge rule
// (purgeDecision) — over in-memory records, archive and lifecycle rows (the file and proposal path is
// covered end to end by test/cli/memory-lifecycle.test.ts). Prints one JSON line.
import { createHash } from "node:crypto"
import { extractClaims } from "../src/domain/memory/Claims.js"
import type { MemoryRecord } from "../src/domain/memory/MemoryRecord.js"
import { purgeDecision } from "../src/domain/memory/Purge.js"
import { memoryPolicy } from "../src/domain/MemoryPolicy.js"
import { planReduction } from "../src/programs/memory/plan.js"
import type { Tier } from "../src/programs/memory/tiers.js"

const DAY = 86_400_000
const START = Date.parse("2026-01-05T00:00:00Z")
const TOTAL = Number(process.env.MEMORY_SIM_TOTAL ?? 10_000)
const WEEKS = 20
// The default mix keeps the durable unique information within the tier (about 3% new durable facts);
// MEMORY_SIM_MIX=dense writes more durable facts than high water holds, to show the tier blocks instead of losing any.
const DENSE = process.env.MEMORY_SIM_MIX === "dense"
const DAYS = WEEKS * 7

const policy = memoryPolicy({
  highWaterItems: 1000,
  lowWaterItems: 800,
  retireGraceDays: 14,
  archiveRetentionDays: 60,
  archiveMaxBytes: 4 * 1024 * 1024,
  semanticRetirement: true
})

// A seeded generator: the same run every time.
let seed = 23
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!

const sha = (text: string) => createHash("sha256").update(text).digest("hex")
const norm = (claim: string) => claim.toLowerCase().replace(/[`*_>#]/g, "").replace(/\s+/g, " ").trim().replace(/[.;:!]+$/, "")

const SUBJECTS = ["runner", "staging DB", "VPN", "deploy window", "build cache", "flaky test", "API gateway", "search index", "queue", "backup job"]
let factNo = 0
const fact = () => {
  factNo++
  return `The ${pick(SUBJECTS)} fact ${factNo} holds for host ${factNo % 97} on port ${1000 + factNo}.`
}

interface Active {
  readonly record: MemoryRecord
}

const active = new Map<string, Active>()
// The archive: digest → claims of the blob (bytes are not needed to audit).
const blobs = new Map<string, { readonly bytes: number; readonly claims: ReadonlyArray<string> }>()
interface Row { readonly ref: string; readonly digest: string; readonly bytes: number; readonly retiredAt: string; readonly successors: ReadonlyArray<string>; readonly hold: boolean; state: "retired" | "quarantined" | "purged"; readonly dispositions: ReadonlyArray<{ readonly claim: string; readonly disposition: string }> }
const rows: Array<Row> = []
// Rows not yet purged per digest: a blob goes with its last row.
const liveRows = new Map<string, number>()
// Every claim ever written, and the claims only expiry may drop.
const allClaims = new Set<string>()
const expiringClaims = new Set<string>()
const durableClaims = new Set<string>()

let cached: { readonly size: number; readonly list: ReadonlyArray<Active> } | undefined
let version = 0
const activeList = (): ReadonlyArray<Active> => {
  if (cached === undefined || cached.size !== version) cached = { size: version, list: [...active.values()] }
  return cached.list
}

let serial = 0
const make = (body: string, now: number, extra: Partial<MemoryRecord> = {}): MemoryRecord => {
  serial++
  const path = `memories/m${serial}.md`
  return { ref: `sim//memories/m${serial}`, path, hash: sha(`${serial}\0${body}`), bytes: body.length + 40, observedAt: new Date(now).toISOString(), body, problems: [], ...extra }
}

const add = (record: MemoryRecord) => {
  active.set(record.ref, { record })
  version++
  for (const c of extractClaims(record.body)) {
    const key = norm(c.text)
    allClaims.add(key)
    if (record.expires !== undefined) expiringClaims.add(key)
    else durableClaims.add(key)
  }
}

const arrive = (now: number) => {
  const roll = random()
  const existing = activeList()
  if (roll < 0.2 && existing.length > 0) {
    // An exact duplicate of something remembered before (same text, another file).
    const original = pick(existing).record
    add({ ...make(original.body, now), ...(original.expires === undefined ? {} : { expires: original.expires }) })
  } else if (roll < 0.32 && existing.length > 0) {
    // A paraphrased near-duplicate: the same claims, reordered and re-cased (in the dense mix, plus one new claim).
    const original = pick(existing).record
    const claims = extractClaims(original.body).map((c) => c.text)
    add(make([...claims.reverse().map((c) => c.replace(/^The /, "the ")), ...(DENSE ? [fact()] : [])].join("\n"), now, original.expires === undefined ? {} : { expires: original.expires }))
  } else if (roll < 0.47 && existing.length > 0) {
    // A supersession: a new version replaces an old memory explicitly.
    const old = pick(existing).record
    // The new version lives as long as the one it replaces.
    add(make(`${fact()}\n${fact()}`, now, { supersedes: [old.ref], ...(old.expires === undefined ? {} : { expires: new Date(Math.max(Date.parse(old.expires), now + DAY)).toISOString() }) }))
  } else if (roll < (DENSE ? 0.92 : 0.97)) {
    // A short-lived observation.
    add(make(`${fact()}\n${fact()}`, now, { expires: new Date(now + (1 + Math.floor(random() * 21)) * DAY).toISOString() }))
  } else {
    add(make(`${fact()}\n${fact()}`, now))
  }
}

const claimsOf = (record: MemoryRecord) => extractClaims(record.body).map((c) => norm(c.text))

const curve: Array<{ day: number; arrived: number; beforePass: number; afterPass: number; archiveBytes: number; archiveBlobs: number; state: string }> = []
let aboveAfterPass = 0
let passes = 0
let maxArchive = 0
let arrived = 0
const perDay = TOTAL / DAYS

for (let day = 0; day < DAYS; day++) {
  const now = START + day * DAY
  const target = Math.round((day + 1) * perDay)
  while (arrived < target) {
    arrive(now + (arrived % 1000))
    arrived++
  }
  const before = active.size
  // A pass runs when the tier crosses high water (as health asks) and once a week regardless.
  if (before > policy.highWaterItems || day % 7 === 6) {
    passes++
    const records = [...active.values()].map((a) => a.record)
    const tier = { active: records, refs: new Set(records.map((r) => r.ref)) } as unknown as Tier
    const plan = planReduction(tier, policy, now)
    for (const r of plan.retire) {
      if (!blobs.has(r.record.hash)) blobs.set(r.record.hash, { bytes: r.record.bytes, claims: claimsOf(r.record) })
      liveRows.set(r.record.hash, (liveRows.get(r.record.hash) ?? 0) + 1)
      rows.push({ ref: r.record.ref, digest: r.record.hash, bytes: r.record.bytes, retiredAt: new Date(now).toISOString(), successors: r.successors, hold: false, state: r.state, dispositions: r.dispositions })
      active.delete(r.record.ref)
      version++
    }
    if (active.size > policy.highWaterItems) aboveAfterPass++
  }
  // The purge sweep (as at the start of improve): grace, successors in place.
  for (const row of rows) {
    if (row.state === "purged") continue
    const missing = row.successors.find((s) => !active.has(s))
    const decision = purgeDecision(row, { nowMs: now, policy, missingSuccessor: missing })
    if (decision._tag !== "purge") continue
    row.state = "purged"
    const left = (liveRows.get(row.digest) ?? 1) - 1
    liveRows.set(row.digest, left)
    if (left <= 0) blobs.delete(row.digest)
  }
  const archiveBytes = [...blobs.values()].reduce((n, b) => n + b.bytes, 0)
  maxArchive = Math.max(maxArchive, archiveBytes)
  curve.push({ day, arrived, beforePass: before, afterPass: active.size, archiveBytes, archiveBlobs: blobs.size, state: active.size > policy.highWaterItems ? "over-high" : "ok" })
}

// The audit: every durable claim of every input is in an active item, an archived blob, or was
// superseded by an explicit successor (its disposition row names it); expiry alone may drop a claim.
const activeClaims = new Set([...active.values()].flatMap((a) => claimsOf(a.record)))
const archivedClaims = new Set([...blobs.values()].flatMap((b) => b.claims))
const superseded = new Set(rows.flatMap((r) => r.dispositions.filter((d) => d.disposition === "superseded").map((d) => norm(d.claim))))
const expired = new Set(rows.flatMap((r) => r.dispositions.filter((d) => d.disposition === "discarded").map((d) => norm(d.claim))))
let lost = 0
const lostExamples: Array<string> = []
for (const claim of allClaims) {
  if (activeClaims.has(claim) || archivedClaims.has(claim) || superseded.has(claim)) continue
  if (expired.has(claim) && !durableClaims.has(claim)) continue
  lost++
  if (lostExamples.length < 3) lostExamples.push(claim)
}

const weekly = curve.filter((c) => c.day % 7 === 6).map((c) => ({ week: (c.day + 1) / 7, arrived: c.arrived, tierBeforePass: c.beforePass, tierAfterPass: c.afterPass, archiveBlobs: c.archiveBlobs, archiveBytes: c.archiveBytes }))
const reasons: Record<string, number> = {}
for (const row of rows) {
  const r = row.dispositions.length === 0 ? "empty" : row.dispositions[0]!.disposition
  reasons[r] = (reasons[r] ?? 0) + 1
}

console.log(JSON.stringify({
  mix: DENSE ? "dense" : "default",
  memories: arrived,
  weeks: WEEKS,
  policy: { highWaterItems: policy.highWaterItems, lowWaterItems: policy.lowWaterItems, retireGraceDays: policy.retireGraceDays, archiveRetentionDays: policy.archiveRetentionDays, archiveMaxBytes: policy.archiveMaxBytes, semanticRetirement: policy.semanticRetirement },
  passes,
  passesLeftAboveHighWater: aboveAfterPass,
  maxTierAfterPass: Math.max(...curve.map((c) => c.afterPass)),
  finalTier: active.size,
  retirements: rows.length,
  byDisposition: reasons,
  purged: rows.filter((r) => r.state === "purged").length,
  archive: { maxBytes: maxArchive, finalBytes: curve.at(-1)!.archiveBytes, finalBlobs: blobs.size, withinMax: maxArchive <= policy.archiveMaxBytes },
  audit: { uniqueClaims: allClaims.size, lost, lostExamples, expiredOnly: [...expired].filter((c) => !durableClaims.has(c)).length },
  weekly,
  targets: { passesLeftAboveHighWater: 0, lost: 0, archiveWithinMax: true }
}))
