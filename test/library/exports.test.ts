import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandTree } from "../../src/cli/main.js"
import { makeWorkspace, repoRoot } from "../support/cli.js"

// The library API exposes every program the CLI runs (spec 09 §5, issue 24): the test walks the CLI's
// command tree, so a new command without its program in `programs` fails here.

/** The program each command runs, by the command's words; null for commands that run no program. */
const PROGRAM_OF: Readonly<Record<string, ReadonlyArray<string> | null>> = {
  "init": ["init"],
  "info": ["info"],
  "config get": ["configGet"],
  "config set": ["configSet"],
  "config unset": ["configUnset"],
  "config list": ["configList"],
  "config path": ["configPath"],
  "bundle add": ["bundleAdd"],
  "bundle create": ["bundleCreate"],
  "bundle list": ["bundleList"],
  "bundle show": ["bundleShow"],
  "bundle update": ["bundleUpdate"],
  "bundle rename": ["bundleRename"],
  "bundle remove": ["bundleRemove"],
  "bundle export": ["bundleExport"],
  "lint": ["lint"],
  "index": ["indexBundles"],
  "search": ["search"],
  "show": ["show"],
  "curate": ["curate"],
  "feedback": ["feedback"],
  "health": ["health"],
  "remember": ["remember", "captureMemory"],
  "memory status": ["memoryStatus"],
  "memory consolidate": ["memoryConsolidate"],
  "memory restore": ["memoryRestore"],
  "storage migrate": ["storageMigrate"],
  "memory purge": ["memoryPurge"],
  "memory hold": ["memoryHold"],
  "import": ["importFile"],
  "create": ["createItem"],
  "ledger add": ["addRecord"],
  "ledger occurred": ["recordOccurred"],
  "ledger list": ["listLedger"],
  "ledger show": ["showLedgerRecord"],
  "ledger verify": ["verifyLedger"],
  "ledger split": ["splitRecord"],
  "ledger import-ci": ["importCi"],
  "ledger mine-git": ["mineGit"],
  "distil": ["distil", "distilDecide"],
  "proposal list": ["proposalList"],
  "proposal show": ["proposalShow"],
  "proposal diff": ["proposalDiff"],
  "proposal accept": ["proposalAccept"],
  "proposal reject": ["proposalReject"],
  "proposal revert": ["proposalRevert"],
  "proposal recover": ["proposalRecover"],
  "proposal new": ["proposalNew"],
  "registry search": ["registrySearch"],
  // Shell scripts and the MCP server are entry points, not programs.
  "completions": null,
  "mcp": null,
  "proposal submit": ["proposalSubmit"],
  "proposal refresh": ["proposalRefresh"],
  "okf index": ["okfIndex"],
  "evidence list": ["listEvidence"],
  "evidence add": ["addEvidence"],
  "evidence dismiss": ["dismissEvidence"],
  "evidence collect": ["collectEvidenceReport"],
  "evidence import": ["importTranscripts"],
  "improve": ["improve"],
  "improve runs": ["improveRuns"],
  "bind": ["bind", "bindUpdate"],
  "bindings": ["bindings"],
  "unbind": ["unbind"],
  "env list": ["envList"],
  "env run": ["envRun"],
  "env export": ["envExport"],
  "env set": ["envSet"],
  "secret list": ["secretList"],
  "secret set": ["secretSet"],
  "task add": ["taskAdd"],
  "task enable": ["taskEnable"],
  "task disable": ["taskDisable"],
  "task run": ["taskRun"],
  "task list": ["taskList"],
  "task history": ["taskHistory"],
  "rules list": ["rulesList"],
  "rules show": ["rulesShow"],
  "rules caused": ["rulesCaused"],
  "rules evolve": ["rulesEvolve"],
  "rules conflicts": ["rulesConflicts"],
  "routers write": ["routersWrite"],
  "routers check": ["routersCheck"],
  "maps write": ["mapsWrite"],
  "maps check": ["mapsCheck"],
  "brief write": ["briefWrite"],
  "brief check": ["briefCheck"],
  "brief explain": ["briefExplain"],
  "scope plan": ["scopePlan"],
  "sync": ["sync"],
  "workflow run": ["workflowRun"],
  "workflow status": ["workflowStatus"],
  "workflow list": ["workflowList"],
  "workflow resume": ["workflowResume"],
  "workflow abandon": ["workflowAbandon"],
  "questions": ["questions", "answerQuestion"],
  "everything": ["everything"]
}

interface Node {
  readonly name: string
  readonly subcommands: ReadonlyArray<Node>
}

const leaves = (node: Node, path: ReadonlyArray<string> = []): ReadonlyArray<string> =>
  node.subcommands.length === 0 ? [path.join(" ")] : node.subcommands.flatMap((child) => leaves(child, [...path, child.name]))

/** Live layers an embedder needs to rebuild makeAkmLive's graph or swap a piece of it. */
const LAYERS = [
  "AkmLive", "makeAkmLive", "StateDbLive", "StateDbMemory", "StateStoreSqlite", "UsageLogSqlite", "RedactorSqlite", "ProposalStoreSqlite",
  "TokenizerGpt", "LogStoreSqlite", "MaterializerLive", "TransactionEngineLive", "GitHistoryIsomorphic", "GitSyncIsomorphic", "ItemProjectorWorkers",
  "ItemProjectorInProcess", "ChangeValidatorIndexed", "IndexStoreSqlite", "IndexStoreMiniSearch", "ProgressStderr", "ProgressSilent",
  "AdaptersBuiltIn", "CrashPointsNone", "BundleFilesNode", "WorkspaceConfigLive", "NodeContextLive"
]

describe("library API (the built package entry)", () => {
  const workspace = makeWorkspace()
  let api: Record<string, Record<string, unknown>>
  beforeAll(async () => {
    // Spawning once makes sure dist/ is built; the entry is then imported as a user's program would.
    await workspace.run(["--version"])
    api = (await import(pathToFileURL(join(repoRoot, "dist/lib/index.js")).href)) as Record<string, Record<string, unknown>>
  }, 120_000)
  afterAll(workspace.cleanup)

  it("every command of the CLI has its program in `programs`", () => {
    const commands = leaves(commandTree() as unknown as Node)
    expect(commands.length).toBeGreaterThan(30)
    const unmapped = commands.filter((command) => !(command in PROGRAM_OF))
    expect(unmapped, "a new command: add its program to src/programs/index.ts and to PROGRAM_OF").toEqual([])
    const missing = commands.flatMap((command) => (PROGRAM_OF[command] ?? []).filter((name) => typeof api.programs![name] !== "function"))
    expect(missing).toEqual([])
  })

  it("`layers` holds every live layer of the graph; the old named exports stay", () => {
    expect(LAYERS.filter((name) => api.layers![name] === undefined)).toEqual([])
    for (const name of ["AkmLive", "makeAkmLive", "programs", "services", "domain", "layers", "IndexStoreMiniSearch", "VERSION"]) expect(api[name], name).toBeDefined()
    expect(api.services!.IndexStore).toBeDefined()
    expect(api.services!.ProposalStore).toBeDefined()
  })
})
