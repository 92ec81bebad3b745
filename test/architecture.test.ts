import { fileURLToPath } from "node:url"
import { ESLint } from "eslint"
import { describe, expect, it } from "vitest"

/**
 * R-ARCH-1 / R-ARCH-3: the architecture rules in eslint.config.js fire for a bad
 * placement and stay silent for the good one, proven on in-memory snippets
 * (the files need not exist), then on the real src/ tree.
 */
const root = fileURLToPath(new URL("..", import.meta.url))
const eslint = new ESLint({ cwd: root })

const restrictedImports = async (filePath: string, code: string) => {
  const [result] = await eslint.lintText(`${code}\n`, { filePath })
  const messages = result?.messages ?? []
  const fatal = messages.filter((message) => message.fatal === true)
  expect(fatal, `${filePath} did not parse`).toEqual([])
  return messages.filter((message) => message.ruleId === "no-restricted-imports").map((message) => message.message)
}

// [requirement the message must name, file, import]
const forbidden: ReadonlyArray<readonly [string, string, string]> = [
  ["R-ARCH-1", "src/programs/x.ts", `import Database from "better-sqlite3"`],
  ["R-ARCH-1", "src/domain/x.ts", `import * as fs from "node:fs"`],
  ["R-ARCH-1", "src/services/x.ts", `import { readFile } from "fs/promises"`],
  ["R-ARCH-1", "src/programs/x.ts", `import { readFile } from "node:fs/promises"`],
  ["R-ARCH-1", "src/programs/x.ts", `export * from "fs"`],
  ["R-ARCH-1", "src/cli/x.ts", `import git from "isomorphic-git"`],
  ["R-ARCH-1", "src/programs/x.ts", `import http from "isomorphic-git/http/node"`],
  ["R-ARCH-1", "src/index.ts", `import { SqliteClient } from "@effect/sql-sqlite-node"`],
  ["R-ARCH-1", "src/programs/x.ts", `import { SqliteMigrator } from "@effect/sql-sqlite-node/SqliteMigrator"`],
  ["R-ARCH-1", "src/programs/x.ts", `import * as PgClient from "@effect/sql-pg/PgClient"`],
  ["R-ARCH-1", "src/programs/x.ts", `import * as tar from "tar"`],
  ["R-ARCH-1", "src/programs/x.ts", `import { request } from "undici"`],
  ["R-ARCH-1", "src/services/x.ts", `import { createServer } from "node:http"`],
  ["R-ARCH-1", "src/services/x.ts", `import { get } from "https"`],
  ["R-ARCH-1", "src/services/x.ts", `import { connect } from "node:net"`],
  ["R-ARCH-1", "src/cli/x.ts", `import { spawn } from "node:child_process"`],
  ["R-ARCH-1", "src/util/x.ts", `import type BetterSqlite from "better-sqlite3"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { Transaction } from "../../services/Transaction.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { Transaction } from "../../../services/Transaction.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { StateStore } from "../../../services/StateStore.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { IndexStore } from "../../../services/IndexStore.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { LogStore } from "../../../services/LogStore.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { Proposals } from "../../../services/Proposals.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { StateDb } from "../../sqlite/Database.js"`],
  ["R-ARCH-3", "src/layers/adapters/okf/x.ts", `import { StateDb } from "../../../layers/sqlite/Database.js"`],
  ["R-ARCH-3", "src/layers/adapters/akm/x.ts", `import { commit } from "../../git/GitCommit.js"`],
  ["R-ARCH-3", "src/layers/adapters/akm/x.ts", `import git from "isomorphic-git"`],
  ["R-ARCH-3", "src/layers/adapters/akm/x.ts", `import http from "isomorphic-git/http/node"`],
  ["R-ARCH-3", "src/layers/adapters/akm/x.ts", `import { apply } from "../../../programs/apply.js"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { FileSystem } from "@effect/platform"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { NodeFileSystem } from "@effect/platform-node/NodeFileSystem"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { IndexStore } from "../services/IndexStore.js"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { IndexStoreSqlite } from "../layers/sqlite/IndexStoreSqlite.js"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { search } from "../programs/search.js"`],
  ["spec 00 §3.2", "src/programs/x.ts", `import { IndexStoreSqlite } from "../layers/sqlite/IndexStoreSqlite.js"`],
  ["spec 00 §3.2", "src/services/x.ts", `import { StateDb } from "../layers/sqlite/Database.js"`],
  ["spec 00 §3.1", "src/programs/x.ts", `import { render } from "../cli/render.js"`],
  ["spec 00 §3.1", "src/domain/x.ts", `import { render } from "../cli/render.js"`],
  ["spec 00 §3.1", "src/layers/sqlite/x.ts", `import { render } from "../../cli/render.js"`],
  ["spec 00 §3.1", "src/index.ts", `import { main } from "./cli/main.js"`]
]

// [file, import] — the same kinds of imports from where they belong.
const allowed: ReadonlyArray<readonly [string, string]> = [
  ["src/layers/sqlite/x.ts", `import Database from "better-sqlite3"`],
  ["src/layers/sqlite/x.ts", `import { SqliteClient } from "@effect/sql-sqlite-node"`],
  ["src/layers/fs/x.ts", `import * as fs from "node:fs"`],
  ["src/layers/git/x.ts", `import git from "isomorphic-git"`],
  ["src/layers/git/x.ts", `import http from "isomorphic-git/http/node"`],
  ["src/layers/npm/x.ts", `import * as tar from "tar"`],
  ["src/layers/website/x.ts", `import { request } from "undici"`],
  ["src/layers/fs/x.ts", `import { Transaction } from "../../services/Transaction.js"`],
  ["src/layers/adapters/okf/x.ts", `import { parse } from "yaml"`],
  ["src/layers/adapters/okf/x.ts", `import { Adapters } from "../../../services/Adapters.js"`],
  ["src/layers/adapters/okf/x.ts", `import type { IndexDocument } from "../../../domain/IndexDocument.js"`],
  ["src/layers/adapters/okf/x.ts", `import { FileSystem } from "@effect/platform"`],
  ["src/domain/x.ts", `import { Schema } from "effect"`],
  ["src/domain/x.ts", `import { BundleName } from "./Ref.js"`],
  ["src/services/x.ts", `import type { WorkspaceUnavailable } from "../domain/Errors.js"`],
  ["src/programs/x.ts", `import { IndexStore } from "../services/IndexStore.js"`],
  ["src/programs/x.ts", `import { FileSystem } from "@effect/platform"`],
  ["src/programs/x.ts", `import { Command } from "@effect/cli/Command"`],
  ["src/cli/x.ts", `import { AkmLive } from "../layers/AkmLive.js"`],
  ["src/cli/x.ts", `import { searchCommand } from "./search.js"`],
  ["src/index.ts", `import { AkmLive } from "./layers/AkmLive.js"`],
  ["src/index.ts", `import { WorkspaceConfigFile } from "./layers/fs/WorkspaceConfigFile.js"`],
  ["test/layers/x.test.ts", `import * as fs from "node:fs"`],
  ["test/programs/x.test.ts", `import { IndexStoreSqlite } from "../../src/layers/sqlite/IndexStoreSqlite.js"`],
  ["bench/x.ts", `import Database from "better-sqlite3"`]
]

describe("architecture rules (eslint no-restricted-imports)", () => {
  it.each(forbidden)("%s: fires in %s for %s", async (requirement, filePath, code) => {
    const messages = await restrictedImports(filePath, code)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toContain(requirement)
  })

  it.each(allowed)("stays silent in %s for %s", async (filePath, code) => {
    expect(await restrictedImports(filePath, code)).toEqual([])
  })

  it("the real src/ tree breaks no architecture rule", async () => {
    const results = await new ESLint({ cwd: root, errorOnUnmatchedPattern: false }).lintFiles(["src"])
    const violations = results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === "no-restricted-imports")
        .map((message) => `${result.filePath.slice(root.length)}:${message.line} ${message.message}`)
    )
    expect(violations).toEqual([])
  })
})
