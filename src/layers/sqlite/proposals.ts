import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex, type AppliedFile, type ChangeClass, type Proposal, type ProposalStatus } from "../../domain/Proposal.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { ProposalStore, type ProposalOutcome, type ProposalSummary } from "../../services/ProposalStore.js"
import type { StateStoreError } from "../../services/StateStore.js"
import { sqlFailure, type SqlDriver } from "./driver.js"
import { and, inList, sql } from "./index/sqlText.js"

/**
 * ProposalStore's statements over state.db (migration 0003_proposals), the one
 * place they are written: the full CLI runs them on the shared state.db client
 * (ProposalStoreSqlite.ts), the health fast path on a connection of its own
 * (ProposalStoreConnection.ts), as usage.ts does for UsageLog. The row
 * mappers are shared with the PostgreSQL layer (postgres/ProposalStorePg.ts).
 */

export interface ProposalRow {
  readonly id: string
  readonly title: string
  readonly recipe: string
  readonly change_class: ChangeClass
  readonly status: ProposalStatus
  readonly fingerprint: string
  readonly evidence: string
  readonly evaluation: string | null
  readonly created_at: string
  readonly decided_at: string | null
  readonly decided_by: string | null
  readonly reason: string | null
}

export interface ChangeRow {
  readonly proposal_id: string
  readonly position: number
  readonly bundle: string
  readonly path: string
  readonly before_hash: string | null
  readonly after: Uint8Array | null
  readonly after_kind: "text" | "bytes" | null
  readonly after_hash: string | null
  readonly mode: number | null
}

export interface OutcomeRow {
  readonly id: number
  readonly at: string
  readonly kind: ProposalOutcome["kind"]
  readonly data: string | null
}

export interface AppliedRow {
  readonly bundle: string
  readonly path: string
  readonly before_hash: string | null
  readonly after_hash: string | null
  readonly backup: string | null
}

const encoder = new TextEncoder()

export const bytesOf = (after: string | Uint8Array): Uint8Array => (typeof after === "string" ? encoder.encode(after) : after)

/** A change as stored; the after-bytes are checked against their hash on the way out (R-TX-2). */
export const toChange = (filename: string) => (row: ChangeRow): FileChange | WorkspaceUnavailable => {
  const base = { bundle: row.bundle, path: row.path, beforeHash: row.before_hash, ...(row.mode === null ? {} : { mode: row.mode }) }
  if (row.after === null) return { ...base, delete: true }
  const bytes = new Uint8Array(row.after)
  if (sha256Hex(bytes) !== row.after_hash) {
    return new WorkspaceUnavailable({
      path: filename,
      reason: `the stored bytes of ${row.bundle}/${row.path} in proposal ${row.proposal_id} do not match their hash`,
      hint: "run `akm health`; reject the proposal and make it again"
    })
  }
  if (row.after_kind !== "text") return { ...base, after: bytes }
  const text = decodeUtf8(bytes)
  if (text === undefined) {
    return new WorkspaceUnavailable({
      path: filename,
      reason: `the stored text of ${row.bundle}/${row.path} in proposal ${row.proposal_id} is not valid UTF-8`,
      hint: "run `akm health`; reject the proposal and make it again"
    })
  }
  return { ...base, after: text }
}

export const toApplied = (row: AppliedRow): AppliedFile => ({
  bundle: row.bundle,
  path: row.path,
  beforeHash: row.before_hash,
  afterHash: row.after_hash,
  ...(row.backup === null ? {} : { backup: row.backup })
})

export const toOutcome = (row: OutcomeRow, applied: ReadonlyArray<AppliedFile>): ProposalOutcome => {
  const data = row.data === null ? {} : (JSON.parse(row.data) as Omit<ProposalOutcome, "id" | "at" | "kind" | "changes">)
  return { id: row.id, at: row.at, kind: row.kind, ...data, ...(applied.length === 0 ? {} : { changes: applied }) }
}

export const summaryOf = (row: ProposalRow, changes: ReadonlyArray<ChangeRow>): ProposalSummary => ({
  id: row.id,
  title: row.title,
  recipe: row.recipe,
  status: row.status,
  changeClass: row.change_class,
  createdAt: row.created_at,
  files: changes.map((c) => ({ bundle: c.bundle, path: c.path, action: c.after === null ? "delete" : c.before_hash === null ? "create" : "update" }))
})

/** A stored proposal with its changes (hash-checked, R-TX-2) and, once accepted, its backup. */
export const proposalOf = (filename: string, row: ProposalRow, changes: ReadonlyArray<ChangeRow>, applied: ReadonlyArray<AppliedFile>): Effect.Effect<Proposal, WorkspaceUnavailable> => {
  const decoded = changes.map(toChange(filename))
  const broken = decoded.find((c): c is WorkspaceUnavailable => c instanceof WorkspaceUnavailable)
  if (broken !== undefined) return Effect.fail(broken)
  const backup = applied.flatMap((a) => (a.backup === undefined ? [] : [{ bundle: a.bundle, path: a.path, hash: a.backup }]))
  return Effect.succeed({
    id: row.id,
    title: row.title,
    recipe: row.recipe,
    changeClass: row.change_class,
    changes: decoded as ReadonlyArray<FileChange>,
    evidence: JSON.parse(row.evidence) as Proposal["evidence"],
    fingerprint: row.fingerprint,
    ...(row.evaluation === null ? {} : { evaluation: JSON.parse(row.evaluation) as NonNullable<Proposal["evaluation"]> }),
    status: row.status,
    createdAt: row.created_at,
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(backup.length === 0 ? {} : { backup })
  })
}

/** ProposalStore over state.db at `filename`, through whichever driver `driver` opens. */
export const proposalStoreOn = (filename: string, driver: Effect.Effect<SqlDriver, StateStoreError>): ProposalStore["Type"] => {
  const fail = sqlFailure(filename)
  const read = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> => Effect.flatMap(driver, (db) => Effect.mapError(f(db), fail))
  const write = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> => read((db) => db.immediate(f))

  const event = (db: SqlDriver, at: string, kind: string, id: string, data: unknown) =>
    db.run(sql`INSERT INTO events (at, kind, subject, data) VALUES (${at}, ${`proposal.${kind}`}, ${id}, ${JSON.stringify(data)})`)

  const changesOf = (db: SqlDriver, ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.succeed(new Map<string, Array<ChangeRow>>())
      : db.rows<ChangeRow>(sql`SELECT * FROM proposal_changes WHERE proposal_id IN ${inList(ids)} ORDER BY proposal_id, position`).pipe(
        Effect.map((rows) => {
          const by = new Map<string, Array<ChangeRow>>()
          for (const row of rows) by.set(row.proposal_id, [...(by.get(row.proposal_id) ?? []), row])
          return by
        })
      )

  const summaries = (db: SqlDriver, rows: ReadonlyArray<ProposalRow>) =>
    Effect.map(changesOf(db, rows.map((r) => r.id)), (changes) => rows.map((row) => summaryOf(row, changes.get(row.id) ?? [])))

  /** The applied files of the latest accepted outcome. */
  const appliedOf = (db: SqlDriver, id: string) =>
    db.rows<AppliedRow>(sql`SELECT a.bundle, a.path, a.before_hash, a.after_hash, a.backup FROM proposal_applied AS a
      WHERE a.outcome_id = (SELECT max(o.id) FROM proposal_outcomes AS o WHERE o.proposal_id = ${id} AND o.kind = 'accepted')
      ORDER BY a.position`).pipe(Effect.map((rows) => rows.map(toApplied)))

  return ProposalStore.of({
    create: (p) =>
      write((db) =>
        Effect.gen(function* () {
          yield* db.run(sql`INSERT INTO proposals (id, title, recipe, change_class, status, fingerprint, evidence, evaluation, created_at, decided_at, decided_by, reason)
            VALUES (${p.id}, ${p.title}, ${p.recipe}, ${p.changeClass}, ${p.status}, ${p.fingerprint}, ${JSON.stringify(p.evidence)},
              ${p.evaluation === undefined ? null : JSON.stringify(p.evaluation)}, ${p.createdAt}, ${p.decidedAt ?? null}, ${p.decidedBy ?? null}, ${p.reason ?? null})`)
          for (const [position, c] of p.changes.entries()) {
            const bytes = c.after === undefined ? null : bytesOf(c.after)
            const kind = c.after === undefined ? null : typeof c.after === "string" ? "text" : "bytes"
            yield* db.run(sql`INSERT INTO proposal_changes (proposal_id, position, bundle, path, before_hash, after, after_kind, after_hash, mode)
              VALUES (${p.id}, ${position}, ${c.bundle}, ${c.path}, ${c.beforeHash}, ${bytes === null ? null : Buffer.from(bytes)}, ${kind},
                ${bytes === null ? null : sha256Hex(bytes)}, ${c.mode ?? null})`)
          }
          yield* event(db, p.createdAt, "created", p.id, { title: p.title, recipe: p.recipe, changeClass: p.changeClass, files: p.changes.map((c) => `${c.bundle}//${c.path}`) })
        })),

    get: (id) =>
      read((db) =>
        Effect.gen(function* () {
          const [row] = yield* db.rows<ProposalRow>(sql`SELECT * FROM proposals WHERE id = ${id}`)
          if (row === undefined) return undefined
          const changes = (yield* changesOf(db, [id])).get(id) ?? []
          const applied = row.status === "accepted" || row.status === "reverted" ? yield* appliedOf(db, id) : []
          return { row, changes, applied }
        })
      ).pipe(Effect.flatMap((found) => (found === undefined ? Effect.succeed(undefined) : proposalOf(filename, found.row, found.changes, found.applied)))),

    idsStartingWith: (prefix, limit) =>
      read((db) =>
        db.rows<{ id: string }>(sql`SELECT id FROM proposals WHERE substr(id, 1, length(${prefix})) = ${prefix} ORDER BY id LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map((r) => r.id))
        )),

    list: ({ status, recipe, bundle, limit = 1000 }) =>
      read((db) =>
        db.rows<ProposalRow>(sql`SELECT * FROM proposals AS p WHERE ${and([
          ...(status === undefined ? [] : [sql`p.status = ${status}`]),
          ...(recipe === undefined ? [] : [sql`p.recipe = ${recipe}`]),
          ...(bundle === undefined ? [] : [sql`EXISTS (SELECT 1 FROM proposal_changes AS c WHERE c.proposal_id = p.id AND c.bundle = ${bundle})`])
        ])} ORDER BY p.created_at DESC, p.rowid DESC LIMIT ${limit}`).pipe(Effect.flatMap((rows) => summaries(db, rows)))),

    decide: (id, d) =>
      write((db) =>
        Effect.gen(function* () {
          const [row] = yield* db.rows<{ status: ProposalStatus }>(sql`SELECT status FROM proposals WHERE id = ${id}`)
          if (row === undefined || !d.from.includes(row.status)) return { moved: false, status: row?.status }
          yield* db.run(sql`UPDATE proposals SET status = ${d.to}, decided_at = ${d.at}, decided_by = ${d.by}, reason = ${d.reason ?? null} WHERE id = ${id}`)
          const { changes, ...data } = d.outcome ?? {}
          const [outcome] = yield* db.rows<{ id: number }>(sql`INSERT INTO proposal_outcomes (proposal_id, at, kind, data)
            VALUES (${id}, ${d.at}, ${d.to}, ${Object.keys(data).length === 0 ? null : JSON.stringify(data)}) RETURNING id`)
          for (const [position, a] of (changes ?? []).entries()) {
            yield* db.run(sql`INSERT INTO proposal_applied (outcome_id, position, bundle, path, before_hash, after_hash, backup)
              VALUES (${outcome!.id}, ${position}, ${a.bundle}, ${a.path}, ${a.beforeHash}, ${a.afterHash}, ${a.backup ?? null})`)
          }
          yield* event(db, d.at, d.to, id, { from: row.status, by: d.by, ...(d.reason === undefined ? {} : { reason: d.reason }) })
          return { moved: true, status: row.status }
        })),

    refused: (id, at, error) =>
      write((db) =>
        Effect.gen(function* () {
          yield* db.run(sql`INSERT INTO proposal_outcomes (proposal_id, at, kind, data) VALUES (${id}, ${at}, 'refused', ${JSON.stringify({ error })})`)
          yield* event(db, at, "refused", id, { error })
        })),

    outcomes: (id) =>
      read((db) =>
        Effect.gen(function* () {
          const rows = yield* db.rows<OutcomeRow>(sql`SELECT id, at, kind, data FROM proposal_outcomes WHERE proposal_id = ${id} ORDER BY id`)
          const applied = rows.length === 0
            ? []
            : yield* db.rows<AppliedRow & { outcome_id: number }>(sql`SELECT * FROM proposal_applied WHERE outcome_id IN ${inList(rows.map((r) => r.id))} ORDER BY outcome_id, position`)
          return rows.map((row) => toOutcome(row, applied.filter((a) => a.outcome_id === row.id).map(toApplied)))
        })),

    applied: (id) =>
      read((db) =>
        Effect.gen(function* () {
          const [accepted] = yield* db.rows<{ n: number }>(sql`SELECT count(*) AS n FROM proposal_outcomes WHERE proposal_id = ${id} AND kind = 'accepted'`)
          return (accepted?.n ?? 0) === 0 ? undefined : yield* appliedOf(db, id)
        })),

    withFingerprint: (fp) =>
      read((db) =>
        db.rows<ProposalRow>(sql`SELECT * FROM proposals WHERE fingerprint = ${fp} ORDER BY created_at DESC, rowid DESC`).pipe(Effect.flatMap((rows) => summaries(db, rows)))),

    expire: (before, at) =>
      write((db) =>
        Effect.gen(function* () {
          const rows = yield* db.rows<{ id: string }>(sql`UPDATE proposals SET status = 'expired', decided_at = ${at}, decided_by = 'expiry'
            WHERE status = 'pending' AND created_at < ${before} RETURNING id`)
          for (const { id } of rows) {
            yield* db.run(sql`INSERT INTO proposal_outcomes (proposal_id, at, kind) VALUES (${id}, ${at}, 'expired')`)
            yield* event(db, at, "expired", id, { from: "pending", by: "expiry" })
          }
          return rows.map((r) => r.id).sort()
        })),

    renameBundle: (from, to) =>
      write((db) =>
        Effect.gen(function* () {
          yield* db.run(sql`UPDATE proposal_changes SET bundle = ${to} WHERE bundle = ${from}`)
          yield* db.run(sql`UPDATE proposal_applied SET bundle = ${to} WHERE bundle = ${from}`)
        }))
  })
}
