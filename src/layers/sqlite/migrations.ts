import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { Migrations } from "./Database.js"

/**
 * Every schema change of the three databases, in order. Append only: a
 * released migration is never edited (R-DB-1).
 */
const exec = (...statements: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const statement of statements) yield* sql.unsafe(statement).raw
  })

export const stateMigrations: Migrations = {
  "0001_events": exec(
    `CREATE TABLE events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject TEXT NOT NULL,
      data TEXT
    )`,
    "CREATE INDEX events_subject ON events (subject)"
  ),
  // Usage, feedback and utility per ref (spec 04 §6); refs are keyed as stored (R-REF-2) so they survive reindexing (R-FB-1).
  "0002_usage_feedback": exec(
    `CREATE TABLE usage_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('search', 'show', 'select')),
      ref TEXT,
      query TEXT,
      refs TEXT,
      source TEXT NOT NULL CHECK (source IN ('user', 'agent', 'audit'))
    )`,
    "CREATE INDEX usage_events_ref ON usage_events (ref, at)",
    "CREATE INDEX usage_events_kind ON usage_events (kind, source, at)",
    `CREATE TABLE feedback (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      ref TEXT NOT NULL,
      polarity TEXT NOT NULL CHECK (polarity IN ('positive', 'negative')),
      reason TEXT,
      tags TEXT,
      source TEXT NOT NULL CHECK (source IN ('user', 'agent', 'audit'))
    )`,
    "CREATE INDEX feedback_ref ON feedback (ref, at)",
    `CREATE TABLE utility (
      ref TEXT PRIMARY KEY,
      value REAL NOT NULL CHECK (value >= 0 AND value <= 1),
      outcomes INTEGER NOT NULL,
      updated_at TEXT NOT NULL
    )`
  ),
  // Proposals (spec 05 §1): the exact after-bytes live here, so the set applied is the set reviewed (R-TX-2);
  // outcomes keep every decision and refused attempt, proposal_applied the files as the engine applied them (revert).
  "0003_proposals": exec(
    `CREATE TABLE proposals (
      id TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      recipe TEXT NOT NULL,
      change_class TEXT NOT NULL CHECK (change_class IN ('mechanical', 'verified-semantic', 'semantic', 'destructive')),
      status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected', 'reverted', 'expired', 'failed')),
      fingerprint TEXT NOT NULL,
      evidence TEXT NOT NULL,
      evaluation TEXT,
      created_at TEXT NOT NULL,
      decided_at TEXT,
      decided_by TEXT,
      reason TEXT
    )`,
    "CREATE INDEX proposals_created ON proposals (created_at)",
    "CREATE INDEX proposals_status ON proposals (status, created_at)",
    "CREATE INDEX proposals_fingerprint ON proposals (fingerprint)",
    `CREATE TABLE proposal_changes (
      proposal_id TEXT NOT NULL REFERENCES proposals (id),
      position INTEGER NOT NULL,
      bundle TEXT NOT NULL,
      path TEXT NOT NULL,
      before_hash TEXT,
      after BLOB,
      after_kind TEXT CHECK (after_kind IN ('text', 'bytes')),
      after_hash TEXT,
      mode INTEGER,
      PRIMARY KEY (proposal_id, position)
    )`,
    "CREATE INDEX proposal_changes_bundle ON proposal_changes (bundle)",
    `CREATE TABLE proposal_outcomes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      proposal_id TEXT NOT NULL REFERENCES proposals (id),
      at TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('accepted', 'rejected', 'reverted', 'expired', 'failed', 'refused')),
      data TEXT
    )`,
    "CREATE INDEX proposal_outcomes_proposal ON proposal_outcomes (proposal_id, id)",
    `CREATE TABLE proposal_applied (
      outcome_id INTEGER NOT NULL REFERENCES proposal_outcomes (id),
      position INTEGER NOT NULL,
      bundle TEXT NOT NULL,
      path TEXT NOT NULL,
      before_hash TEXT,
      after_hash TEXT,
      backup TEXT,
      PRIMARY KEY (outcome_id, position)
    )`
  ),
  // The redactor's known secret values (spec 08 §2.1): only a keyed HMAC-SHA256, the length and a keyed 16-bit
  // prefilter tag per value, never the value; `source` is the bundle it was collected from, so a reindex replaces it.
  "0004_redactor_values": exec(
    `CREATE TABLE redactor_values (
      source TEXT NOT NULL,
      hmac TEXT NOT NULL,
      length INTEGER NOT NULL,
      tag INTEGER NOT NULL,
      PRIMARY KEY (source, hmac)
    ) WITHOUT ROWID`
  ),
  // Evidence for improve (spec 06 §1). One row per observation: the same content seen under the same independence
  // key (a session, a day of one source) is one row, so re-collecting or re-importing never inflates counts (R-IMP-2).
  // kind and source are checked where rows are made, not here: a later kind needs no table rebuild.
  "0005_evidence": exec(
    `CREATE TABLE evidence (
      id TEXT PRIMARY KEY,
      hash TEXT NOT NULL,
      independence_key TEXT NOT NULL,
      kind TEXT NOT NULL,
      source TEXT NOT NULL,
      ref TEXT,
      note TEXT NOT NULL,
      query TEXT,
      origin TEXT,
      observed_at TEXT,
      recorded_at TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('open', 'used', 'dismissed')),
      UNIQUE (hash, independence_key)
    )`,
    "CREATE INDEX evidence_ref ON evidence (ref, recorded_at)",
    "CREATE INDEX evidence_recorded ON evidence (recorded_at)"
  ),
  // Bindings (spec 07 §1, docs/decisions/0019-bindings.md): the approved digest and definition of an export,
  // params and env references (`env:VAR`, `secret:<ref>`), never values.
  "0006_bindings": exec(
    `CREATE TABLE bindings (
      alias TEXT PRIMARY KEY,
      export_ref TEXT NOT NULL,
      kind TEXT NOT NULL,
      digest TEXT NOT NULL,
      definition TEXT NOT NULL,
      params TEXT NOT NULL,
      env TEXT NOT NULL,
      source TEXT NOT NULL,
      approved_at TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    "CREATE INDEX bindings_export ON bindings (export_ref)"
  ),
  // Generator accounting and response cache (spec 06 §5, R-GEN-2): one row per generate() with its outcome, tokens
  // and cost; the cache keeps a (redacted) answer per generator and attempt fingerprint, so a repeat makes no call.
  "0007_generator_calls": exec(
    `CREATE TABLE generator_calls (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      generator TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      outcome TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL,
      cost_usd REAL,
      duration_ms INTEGER NOT NULL
    )`,
    "CREATE INDEX generator_calls_at ON generator_calls (at)",
    `CREATE TABLE generator_cache (
      generator TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      response TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (generator, fingerprint)
    ) WITHOUT ROWID`
  ),
  // Improve (spec 06 §3, §4, §6): run records (R-IMP-7), one attempt per fingerprint per run (R-IMP-3),
  // and what became of each proposal a run made (Level 3 field outcomes, used only to order work).
  "0008_improve_runs": exec(
    `CREATE TABLE improve_runs (
      id TEXT PRIMARY KEY,
      started_at TEXT NOT NULL,
      finished_at TEXT NOT NULL,
      status TEXT NOT NULL,
      record TEXT NOT NULL
    )`,
    "CREATE INDEX improve_runs_started ON improve_runs (started_at)",
    `CREATE TABLE improve_attempts (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      recipe TEXT NOT NULL,
      target TEXT NOT NULL,
      outcome TEXT NOT NULL,
      reason TEXT,
      proposal_id TEXT,
      at TEXT NOT NULL
    )`,
    "CREATE INDEX improve_attempts_fingerprint ON improve_attempts (fingerprint)",
    `CREATE TABLE improve_outcomes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      proposal_id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      target TEXT NOT NULL,
      kind TEXT NOT NULL,
      at TEXT NOT NULL
    )`,
    "CREATE INDEX improve_outcomes_proposal ON improve_outcomes (proposal_id)"
  ),
  // Workflow runs (spec 07 §2, docs/decisions/0025-workflow-runs.md): the frozen plan as canonical JSON with its
  // sha256 (R-RT-4, R-RT-5) and each step's durable state; output and logs go to logs.db.
  "0009_workflow_runs": exec(
    `CREATE TABLE workflow_runs (
      id TEXT PRIMARY KEY,
      workflow TEXT NOT NULL,
      status TEXT NOT NULL,
      frozen TEXT NOT NULL,
      frozen_hash TEXT NOT NULL,
      message TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    "CREATE INDEX workflow_runs_created ON workflow_runs (created_at)",
    `CREATE TABLE workflow_steps (
      run_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      step_id TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      exit_code INTEGER,
      summary TEXT,
      started_at TEXT,
      finished_at TEXT,
      pid INTEGER,
      PRIMARY KEY (run_id, idx)
    ) WITHOUT ROWID`
  ),
  // Tasks (spec 07 §3, docs/decisions/0026-task-scheduling.md): which are enabled and with what schedule and
  // approved digest the scheduler entry was written, and each run's exit status and duration (R-RT-6).
  "0010_tasks": exec(
    `CREATE TABLE tasks (
      alias TEXT PRIMARY KEY,
      export_ref TEXT NOT NULL,
      digest TEXT NOT NULL,
      schedule TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE TABLE task_runs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      alias TEXT NOT NULL,
      export_ref TEXT NOT NULL,
      digest TEXT NOT NULL,
      trigger TEXT NOT NULL,
      target TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      duration_ms INTEGER,
      exit INTEGER,
      status TEXT NOT NULL
    )`,
    "CREATE INDEX task_runs_alias ON task_runs (alias, id)"
  ),
  // The memory lifecycle (spec 06 §8.3, §8.5): one row per retirement, with the archived blob's digest,
  // reason, successors, claim dispositions, proposal, hold flag, and restore/purge outcome.
  "0011_memory": exec(
    `CREATE TABLE memory_archive (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      bundle TEXT NOT NULL,
      ref TEXT NOT NULL,
      path TEXT NOT NULL,
      digest TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      state TEXT NOT NULL,
      reason TEXT NOT NULL,
      successors TEXT NOT NULL,
      dispositions TEXT NOT NULL,
      proposal_id TEXT,
      retired_at TEXT NOT NULL,
      hold INTEGER NOT NULL DEFAULT 0,
      overlay INTEGER NOT NULL DEFAULT 0,
      restored_at TEXT,
      restore_proposal TEXT,
      purged_at TEXT
    )`,
    "CREATE INDEX memory_archive_ref ON memory_archive (ref)",
    "CREATE INDEX memory_archive_bundle ON memory_archive (bundle, state)"
  ),
  // Structured details kept with an evidence row (docs/decisions/0047): a queued background capture's tags and expiry.
  "0012_evidence_data": exec("ALTER TABLE evidence ADD COLUMN data TEXT")
}

export const logsMigrations: Migrations = {
  "0001_lines": exec(
    `CREATE TABLE lines (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      run TEXT NOT NULL,
      level TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
      message TEXT NOT NULL
    )`,
    "CREATE INDEX lines_run ON lines (run, id)",
    "CREATE INDEX lines_at ON lines (at)"
  )
}

/**
 * index.db is disposable (spec 01 §4): until a release ships, its schema is
 * one migration; delete an index.db from an older development build.
 */
export const indexMigrations: Migrations = {
  "0001_index": exec(
    // One row per item. AUTOINCREMENT: a deleted item's row id is never reused (stable ids, R-IDX-3).
    // Query-time signals are columns, never parsed out of JSON at query time; `digest` detects unchanged items.
    // The whole document lives in document_json, so ranking reads narrow rows.
    `CREATE TABLE documents (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ref TEXT NOT NULL UNIQUE,
      bundle TEXT NOT NULL,
      concept_id TEXT NOT NULL,
      adapter TEXT NOT NULL,
      type TEXT,
      name TEXT NOT NULL,
      description TEXT,
      tags TEXT NOT NULL,
      aliases TEXT NOT NULL,
      hints TEXT NOT NULL,
      quality TEXT,
      belief_state TEXT,
      superseded_by TEXT,
      status TEXT,
      stale_after TEXT,
      pinned INTEGER NOT NULL,
      scope TEXT,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      digest TEXT NOT NULL
    )`,
    `CREATE TABLE document_json (
      id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
      doc TEXT NOT NULL
    )`,
    "CREATE INDEX documents_bundle ON documents (bundle, concept_id)",
    "CREATE INDEX documents_superseded_by ON documents (superseded_by) WHERE superseded_by IS NOT NULL",
    // The few items default search leaves out, so counting a match's total needs no join over all of it.
    "CREATE INDEX documents_excludable ON documents (id) WHERE quality = 'proposed' OR superseded_by IS NOT NULL",
    // Words: porter stems, diacritics folded; contentless (the text lives in `doc`), bm25 weights 10/5/3/2/1 at query time.
    `CREATE VIRTUAL TABLE documents_fts USING fts5 (
      name, description, tags, hints, content,
      content = '', contentless_delete = 1,
      tokenize = 'porter unicode61 remove_diacritics 2'
    )`,
    // Document frequency per stemmed term, for IDF weights without a scan.
    "CREATE VIRTUAL TABLE documents_vocab USING fts5vocab (documents_fts, 'row')",
    // Substrings and scripts without word spacing (CJK); keeps its text for LIKE on queries under 3 characters.
    `CREATE VIRTUAL TABLE documents_trigram USING fts5 (
      name, description, tags, content,
      tokenize = 'trigram remove_diacritics 1'
    )`,
    `CREATE TABLE links (
      document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
      target TEXT NOT NULL
    )`,
    "CREATE INDEX links_document ON links (document_id)",
    "CREATE INDEX links_target ON links (target)",
    `CREATE TABLE outline (
      document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      depth INTEGER NOT NULL,
      text TEXT NOT NULL,
      slug TEXT NOT NULL,
      PRIMARY KEY (document_id, position)
    ) WITHOUT ROWID`,
    // The manifest (R-IDX-2): per bundle the adapter and run that indexed it, per file what was seen.
    `CREATE TABLE bundles (
      name TEXT PRIMARY KEY,
      items INTEGER NOT NULL DEFAULT 0,
      adapter TEXT,
      adapter_version TEXT,
      indexed_at TEXT,
      writable INTEGER,
      errors INTEGER,
      warnings INTEGER,
      infos INTEGER,
      stale_reason TEXT
    ) WITHOUT ROWID`,
    `CREATE TABLE manifest (
      bundle TEXT NOT NULL,
      path TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      hash TEXT,
      PRIMARY KEY (bundle, path)
    ) WITHOUT ROWID`,
    "CREATE TABLE token_counts (hash TEXT PRIMARY KEY, tokens INTEGER NOT NULL) WITHOUT ROWID",
    // Copied from state.db (spec 04 §6), keyed by ref so a rebuilt index gets them back.
    "CREATE TABLE ranking_features (ref TEXT PRIMARY KEY, utility REAL NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"
  ),
  // What an incremental scan needs to keep an item without reading it (R-IDX-2): the plan, the files its
  // projection read, its findings and lint projection (JSON), and their digest to tell a changed set.
  "0002_item_inputs": exec(
    "ALTER TABLE document_json ADD COLUMN inputs TEXT",
    "ALTER TABLE documents ADD COLUMN inputs_digest TEXT"
  ),
  // The root a bundle's rows were read from: stat-equal files under a new root (npm packs stamp 1985) are not the same files.
  // Added only when missing: development builds of 0002 briefly carried this column.
  "0003_bundle_root": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('bundles')`
    if (!columns.some((column) => column.name === "root")) yield* sql.unsafe("ALTER TABLE bundles ADD COLUMN root TEXT").raw
  }),
  // Lexical diversity per item, measured at index time (issue 25, domain/TextSignals.ts): NULL for rows written before.
  "0004_search_signals": exec("ALTER TABLE documents ADD COLUMN diversity REAL"),
  // Item embeddings for hybrid search (R-SRCH-4): unit float32 vectors by embedding space (model@dimensions) and content hash,
  // so an unchanged item is never embedded twice; written only when search.embeddings is configured.
  "0005_embeddings": exec("CREATE TABLE embeddings (space TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (space, hash)) WITHOUT ROWID"),
  // A successor named by a project rule id (rows.ts successorOf) is looked up among the bundle's project rules only:
  // without this index every row whose successor is missing scanned the whole bundle on every search (3x the CPU at 5,000 items).
  "0006_project_rules": exec("CREATE INDEX documents_project_rules ON documents (bundle, hints) WHERE adapter = 'project' AND type = 'rule'")
}
