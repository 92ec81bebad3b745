import type * as PgClient from "@effect/sql-pg/PgClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { sha256Hex, type ProposalStatus } from "../../domain/Proposal.js"
import { ProposalStore, type ProposalSummary } from "../../services/ProposalStore.js"
import { bytesOf, proposalOf, summaryOf, toApplied, toOutcome, type AppliedRow, type ChangeRow, type OutcomeRow, type ProposalRow } from "../sqlite/proposals.js"
import { insertEvent } from "./events.js"
import { int8, pgRun, type Int8 } from "./pgRun.js"
import { PgStateDb } from "./PgStateDb.js"

const PROPOSAL_COLUMNS = "id, title, recipe, change_class, status, fingerprint, evidence, evaluation, created_at, decided_at, decided_by, reason"

/**
 * ProposalStore on PostgreSQL: proposals.ts's statements in PostgreSQL's
 * dialect, the same row mappers. `decide` locks the proposal's row (FOR
 * UPDATE), so of two servers accepting one proposal exactly one moves it and
 * the other sees it accepted.
 */
export const ProposalStorePg = Layer.effect(
  ProposalStore,
  Effect.gen(function* () {
    const db = yield* PgStateDb
    const run = pgRun(db)

    const event = (sql: PgClient.PgClient, at: string, kind: string, id: string, data: unknown) =>
      insertEvent(sql, at, `proposal.${kind}`, id, JSON.stringify(data))

    const changesOf = (sql: PgClient.PgClient, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, Array<ChangeRow>>())
        : sql<ChangeRow>`SELECT * FROM proposal_changes WHERE proposal_id IN ${sql.in(ids)} ORDER BY proposal_id, position`.pipe(
          Effect.map((rows) => {
            const by = new Map<string, Array<ChangeRow>>()
            for (const row of rows) by.set(row.proposal_id, [...(by.get(row.proposal_id) ?? []), row])
            return by
          })
        )

    const summaries = (sql: PgClient.PgClient, rows: ReadonlyArray<ProposalRow>): Effect.Effect<ReadonlyArray<ProposalSummary>, SqlError> =>
      Effect.map(changesOf(sql, rows.map((r) => r.id)), (changes) => rows.map((row) => summaryOf(row, changes.get(row.id) ?? [])))

    const appliedOf = (sql: PgClient.PgClient, id: string) =>
      sql<AppliedRow>`SELECT a.bundle, a.path, a.before_hash, a.after_hash, a.backup FROM proposal_applied AS a
        WHERE a.outcome_id = (SELECT max(o.id) FROM proposal_outcomes AS o WHERE o.proposal_id = ${id} AND o.kind = 'accepted')
        ORDER BY a.position`.pipe(Effect.map((rows) => rows.map(toApplied)))

    return ProposalStore.of({
      create: (p) =>
        run.write((sql) =>
          Effect.gen(function* () {
            yield* sql`INSERT INTO proposals (id, title, recipe, change_class, status, fingerprint, evidence, evaluation, created_at, decided_at, decided_by, reason)
              VALUES (${p.id}, ${p.title}, ${p.recipe}, ${p.changeClass}, ${p.status}, ${p.fingerprint}, ${JSON.stringify(p.evidence)},
                ${p.evaluation === undefined ? null : JSON.stringify(p.evaluation)}, ${p.createdAt}, ${p.decidedAt ?? null}, ${p.decidedBy ?? null}, ${p.reason ?? null})`
            for (const [position, c] of p.changes.entries()) {
              const bytes = c.after === undefined ? null : bytesOf(c.after)
              const kind = c.after === undefined ? null : typeof c.after === "string" ? "text" : "bytes"
              yield* sql`INSERT INTO proposal_changes (proposal_id, position, bundle, path, before_hash, after, after_kind, after_hash, mode)
                VALUES (${p.id}, ${position}, ${c.bundle}, ${c.path}, ${c.beforeHash}, ${bytes === null ? null : Buffer.from(bytes)}, ${kind},
                  ${bytes === null ? null : sha256Hex(bytes)}, ${c.mode ?? null})`
            }
            yield* event(sql, p.createdAt, "created", p.id, { title: p.title, recipe: p.recipe, changeClass: p.changeClass, files: p.changes.map((c) => `${c.bundle}//${c.path}`) })
          })),

      get: (id) =>
        run.read((sql) =>
          Effect.gen(function* () {
            const [row] = yield* sql<ProposalRow>`SELECT ${sql.literal(PROPOSAL_COLUMNS)} FROM proposals WHERE id = ${id}`
            if (row === undefined) return undefined
            const changes = (yield* changesOf(sql, [id])).get(id) ?? []
            const applied = row.status === "accepted" || row.status === "reverted" ? yield* appliedOf(sql, id) : []
            return { row, changes, applied }
          })
        ).pipe(Effect.flatMap((found) => (found === undefined ? Effect.succeed(undefined) : proposalOf(db.server, found.row, found.changes, found.applied)))),

      idsStartingWith: (prefix, limit) =>
        run.read((sql) =>
          sql<{ id: string }>`SELECT id FROM proposals WHERE starts_with(id, ${prefix}::text) ORDER BY id COLLATE "C" LIMIT ${limit}`.pipe(
            Effect.map((rows) => rows.map((r) => r.id))
          )),

      list: ({ status, recipe, bundle, limit = 1000 }) =>
        run.read((sql) =>
          sql<ProposalRow>`SELECT ${sql.literal(PROPOSAL_COLUMNS.split(", ").map((c) => `p.${c}`).join(", "))} FROM proposals AS p WHERE
            ${status === undefined ? sql`TRUE` : sql`p.status = ${status}`}
            AND ${recipe === undefined ? sql`TRUE` : sql`p.recipe = ${recipe}`}
            AND ${bundle === undefined ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM proposal_changes AS c WHERE c.proposal_id = p.id AND c.bundle = ${bundle})`}
            ORDER BY p.created_at DESC, p.seq DESC LIMIT ${limit}`.pipe(Effect.flatMap((rows) => summaries(sql, rows)))),

      decide: (id, d) =>
        run.write((sql) =>
          Effect.gen(function* () {
            const [row] = yield* sql<{ status: ProposalStatus }>`SELECT status FROM proposals WHERE id = ${id} FOR UPDATE`
            if (row === undefined || !d.from.includes(row.status)) return { moved: false, status: row?.status }
            yield* sql`UPDATE proposals SET status = ${d.to}, decided_at = ${d.at}, decided_by = ${d.by}, reason = ${d.reason ?? null} WHERE id = ${id}`
            const { changes, ...data } = d.outcome ?? {}
            const [outcome] = yield* sql<{ id: Int8 }>`INSERT INTO proposal_outcomes (proposal_id, at, kind, data)
              VALUES (${id}, ${d.at}, ${d.to}, ${Object.keys(data).length === 0 ? null : JSON.stringify(data)}) RETURNING id`
            for (const [position, a] of (changes ?? []).entries()) {
              yield* sql`INSERT INTO proposal_applied (outcome_id, position, bundle, path, before_hash, after_hash, backup)
                VALUES (${outcome!.id}, ${position}, ${a.bundle}, ${a.path}, ${a.beforeHash}, ${a.afterHash}, ${a.backup ?? null})`
            }
            yield* event(sql, d.at, d.to, id, { from: row.status, by: d.by, ...(d.reason === undefined ? {} : { reason: d.reason }) })
            return { moved: true, status: row.status }
          })),

      refused: (id, at, error) =>
        run.write((sql) =>
          Effect.gen(function* () {
            yield* sql`INSERT INTO proposal_outcomes (proposal_id, at, kind, data) VALUES (${id}, ${at}, 'refused', ${JSON.stringify({ error })})`
            yield* event(sql, at, "refused", id, { error })
          })),

      outcomes: (id) =>
        run.read((sql) =>
          Effect.gen(function* () {
            const rows = (yield* sql<Omit<OutcomeRow, "id"> & { id: Int8 }>`SELECT id, at, kind, data FROM proposal_outcomes WHERE proposal_id = ${id} ORDER BY id`)
              .map((row): OutcomeRow => ({ ...row, id: int8(row.id) }))
            const applied = rows.length === 0
              ? []
              : yield* sql<AppliedRow & { outcome_id: Int8 }>`SELECT * FROM proposal_applied WHERE outcome_id IN ${sql.in(rows.map((r) => r.id))} ORDER BY outcome_id, position`
            return rows.map((row) => toOutcome(row, applied.filter((a) => int8(a.outcome_id) === row.id).map(toApplied)))
          })),

      applied: (id) =>
        run.read((sql) =>
          Effect.gen(function* () {
            const [accepted] = yield* sql<{ n: Int8 }>`SELECT count(*) AS n FROM proposal_outcomes WHERE proposal_id = ${id} AND kind = 'accepted'`
            return int8(accepted?.n ?? 0) === 0 ? undefined : yield* appliedOf(sql, id)
          })),

      withFingerprint: (fp) =>
        run.read((sql) =>
          sql<ProposalRow>`SELECT ${sql.literal(PROPOSAL_COLUMNS)} FROM proposals WHERE fingerprint = ${fp} ORDER BY created_at DESC, seq DESC`.pipe(
            Effect.flatMap((rows) => summaries(sql, rows))
          )),

      expire: (before, at) =>
        run.write((sql) =>
          Effect.gen(function* () {
            const rows = yield* sql<{ id: string }>`UPDATE proposals SET status = 'expired', decided_at = ${at}, decided_by = 'expiry'
              WHERE status = 'pending' AND created_at < ${before} RETURNING id`
            for (const { id } of rows) {
              yield* sql`INSERT INTO proposal_outcomes (proposal_id, at, kind) VALUES (${id}, ${at}, 'expired')`
              yield* event(sql, at, "expired", id, { from: "pending", by: "expiry" })
            }
            return rows.map((r) => r.id).sort()
          })),

      renameBundle: (from, to) =>
        run.write((sql) =>
          Effect.gen(function* () {
            yield* sql`UPDATE proposal_changes SET bundle = ${to} WHERE bundle = ${from}`
            yield* sql`UPDATE proposal_applied SET bundle = ${to} WHERE bundle = ${from}`
          }))
    })
  })
)
