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
  )
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

export const indexMigrations: Migrations = {
  "0001_documents": exec(
    `CREATE TABLE documents (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      ref TEXT NOT NULL UNIQUE,
      bundle TEXT NOT NULL,
      concept_id TEXT NOT NULL,
      adapter TEXT NOT NULL,
      path TEXT NOT NULL,
      hash TEXT NOT NULL,
      type TEXT,
      name TEXT NOT NULL,
      description TEXT,
      doc TEXT NOT NULL
    )`,
    "CREATE INDEX documents_bundle ON documents (bundle, concept_id)",
    `CREATE VIRTUAL TABLE documents_fts USING fts5 (
      name, description, tags, hints, content,
      tokenize = 'porter unicode61'
    )`
  )
}
