/**
 * The child-process driver of the crash and concurrency tests (R-TX-10,
 * R-TX-8). test/support/txHarness.ts bundles it with esbuild and runs it with
 * `node <bundle> <spec.json>`. It runs one operation through the real engine
 * over a real workspace — the way the CLI would, with state.db open and an
 * event recorded before and after — and prints one JSON line. With
 * AKM_TX_CRASH_AT set, the engine's crash points SIGKILL this process: this
 * test-only entry point provides the CrashPoints test layer
 * (crashPointsFromEnv.ts), which the shipped CLI never contains.
 */
import { trustedText } from "../../src/domain/Redaction.js"
import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { AdaptersBuiltIn } from "../../src/layers/adapters/registry.js"
import { BundleFilesNode } from "../../src/layers/fs/BundleFilesNode.js"
import { TransactionEngineLive } from "../../src/layers/fs/TransactionEngine.js"
import { ChangeValidatorFull } from "../../src/layers/validation/ChangeValidatorIndexed.js"
import { WorkspaceConfigLive } from "../../src/layers/fs/WorkspaceConfigFile.js"
import { makeStateStore } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { Transaction, type ApplyRequest, type RevertRequest } from "../../src/services/Transaction.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { CrashPointsFromEnv } from "./crashPointsFromEnv.js"

export type ChildOp =
  | { readonly op: "apply"; readonly request: ApplyRequest }
  | { readonly op: "revert"; readonly request: RevertRequest }
  | { readonly op: "twoPhase"; readonly request: ApplyRequest; readonly retire: ApplyRequest }
  | { readonly op: "recover" }

export type ChildSpec = ChildOp & {
  readonly workspace: { readonly configDir: string; readonly dataDir: string; readonly cacheDir: string }
  /** Print "ready" and wait for this file before starting (start line for races). */
  readonly go?: string
}

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as ChildSpec

const waitForGo = async (file: string) => {
  process.stdout.write("ready\n")
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 2))
}

const program = Effect.gen(function* () {
  const transaction = yield* Transaction
  const workspace = yield* WorkspaceConfig
  const events = yield* makeStateStore(workspace.paths.stateDb)
  const subject = trustedText(spec.op === "recover" ? "recover" : spec.request.id)
  yield* events.appendEvent(`txn.${spec.op}.start`, subject)
  const value =
    spec.op === "apply" ? yield* transaction.apply(spec.request)
    : spec.op === "revert" ? yield* transaction.revert(spec.request)
    : spec.op === "twoPhase" ? yield* transaction.twoPhase(spec.request, spec.retire)
    : yield* transaction.recover
  yield* events.appendEvent(`txn.${spec.op}.done`, subject)
  return value
})

const layer = TransactionEngineLive.pipe(
  Layer.provide(AdaptersBuiltIn),
  Layer.provide(CrashPointsFromEnv),
  Layer.provide(ChangeValidatorFull),
  Layer.provideMerge(BundleFilesNode),
  Layer.provideMerge(WorkspaceConfigLive(spec.workspace))
)

const main = async () => {
  if (spec.go !== undefined) await waitForGo(spec.go)
  const exit = await Effect.runPromiseExit(program.pipe(Effect.scoped, Effect.provide(layer)))
  if (exit._tag === "Success") {
    process.stdout.write(`${JSON.stringify({ ok: true, value: exit.value })}\n`)
    return
  }
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  process.stdout.write(`${JSON.stringify({ ok: false, error: failure === undefined ? { _tag: "Defect", message: String(exit.cause) } : { ...failure, message: (failure as Error).message } })}\n`)
  process.exitCode = 1
}

void main()
