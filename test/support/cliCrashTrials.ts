import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect } from "vitest"
import { makeWorkspace, type Workspace } from "./cli.js"
import { runCrashCli, type CrashRun } from "./crashCli.js"
import { bundleChild, snapshot } from "./txHarness.js"

/**
 * The CLI crash matrix of issue 13 item 4 (R-TX-10): real `akm remember` and
 * `akm proposal accept` of a 120-file set, run by the test-only entry point
 * (cliWithCrashPoints) and SIGKILLed at a named or random engine point;
 * optionally the journal (or finished record) is damaged before anything
 * recovers. The shipped CLI then carries on — `akm lint --fix` (a writer that
 * recovers first and has nothing of its own to change), and for damage
 * `akm health` plus `akm proposal recover … --rollback|--forward`. Every trial
 * must end with the bundle byte-identical to the full pre-state or the full
 * post-state, and the proposal's recorded status matching the bytes.
 *
 * Each trial starts from a copy of one prepared workspace, restored at the
 * same path (the config and state.db hold absolute paths).
 */

export type Phase = "remember" | "accept-120"
export type Damage = "truncate" | "garbage" | "forge"

export interface Lab {
  readonly ws: Workspace
  readonly kb: string
  readonly phase: Phase
  /** The pending 120-file proposal (accept-120). */
  readonly proposalId: string | undefined
  readonly reset: () => void
  readonly dispose: () => void
}

const note = (i: number, extra = "") => `---\ndescription: Note ${i}\n---\n# Note ${i}\n\nAbout topic ${i}.${extra}\n`

export const FILES = 120

/** A workspace with bundle kb; for accept-120 also a pending proposal updating 60 files and creating 60. */
export const makeLab = async (phase: Phase): Promise<Lab> => {
  const ws = makeWorkspace()
  const files: Record<string, string> = { "knowledge/a.md": "---\ndescription: A note\n---\n# A\n\nAbout caching.\n" }
  if (phase === "accept-120") for (let i = 0; i < FILES / 2; i++) files[`knowledge/n${String(i).padStart(3, "0")}.md`] = note(i)
  const kb = ws.folder("kb", files)
  expect((await ws.run(["init"])).code).toBe(0)
  expect((await ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm"])).code).toBe(0)
  let proposalId: string | undefined
  if (phase === "accept-120") {
    const drafts: Record<string, string> = {}
    for (let i = 0; i < FILES; i++) drafts[`d${i}.md`] = note(i, i < FILES / 2 ? " Revised." : " Added.")
    const dir = ws.folder("drafts", drafts)
    const flags = Array.from({ length: FILES }, (_, i) =>
      ["--file", `${i < FILES / 2 ? `knowledge/n${String(i).padStart(3, "0")}.md` : `knowledge/more/m${String(i).padStart(3, "0")}.md`}=@${dir}/d${i}.md`]).flat()
    const made = await ws.run(["proposal", "new", "--bundle", "kb", ...flags, "--title", "Revise 60 notes, add 60"])
    expect(made.code, made.stderr).toBe(0)
    proposalId = made.json<{ id: string }>().id
  }
  const template = `${ws.root}.template`
  fs.cpSync(ws.root, template, { recursive: true })
  return {
    ws,
    kb,
    phase,
    proposalId,
    reset: () => {
      fs.rmSync(ws.root, { recursive: true, force: true })
      fs.cpSync(template, ws.root, { recursive: true })
    },
    dispose: () => {
      ws.cleanup()
      fs.rmSync(template, { recursive: true, force: true })
    }
  }
}

/** How many points a run of the phase passes (a random span a little wider, so some trials complete). */
export const SPAN: Record<Phase, number> = { "remember": 10, "accept-120": 2 * FILES + FILES / 2 + 14 }

export interface Trial {
  readonly crash: CrashRun
  readonly damaged: Damage | undefined
  readonly direction: "rollback" | "forward" | undefined
  /** "pre" or "post" when the bundle is byte-identical to one of them. */
  readonly state: "pre" | "post" | "neither"
  readonly status: string | undefined
  readonly problem: string | undefined
}

type Snapshot = Record<string, string>

/** The post-state a proposal's files describe, from the pre-state: files at their after-hashes, their directories present. */
const postOf = (pre: Snapshot, files: ReadonlyArray<{ path: string; afterHash: string | null }>): Snapshot => {
  const post: Snapshot = { ...pre }
  for (const f of files) {
    if (f.afterHash === null) delete post[f.path]
    else post[f.path] = `file ${pre[f.path]?.split(" ")[1] ?? "644"} ${f.afterHash}`
  }
  return post
}

/** File entries only, with the parent directories listed by name (their modes depend on the umask). */
const shape = (s: Snapshot): Snapshot => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.startsWith("dir") ? "dir" : v]))

const withDirs = (s: Snapshot): Snapshot => {
  const out = { ...s }
  for (const key of Object.keys(s)) {
    const parts = key.split("/")
    for (let i = 1; i < parts.length; i++) out[parts.slice(0, i).join("/")] ??= "dir"
  }
  return out
}

const damage = (file: string, how: Damage): void => {
  const text = fs.readFileSync(file, "utf8")
  if (how === "truncate") fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)))
  else if (how === "garbage") fs.writeFileSync(file, Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22]))
  else fs.writeFileSync(file, text.replace(/\.akm-tx-[0-9a-f]{12}-(\d+)\.tmp/, "forged-$1.tmp"))
}

/** Runs one trial from the lab's pristine state. */
export const runTrial = async (lab: Lab, script: string, crashAt: string, options: { readonly damage?: Damage; readonly direction?: "rollback" | "forward" } = {}): Promise<Trial> => {
  lab.reset()
  const { ws, kb } = lab
  const pre = snapshot(kb)
  const args = lab.phase === "remember"
    ? ["remember", "Deploys freeze on Fridays. Ask the release manager.", "--bundle", "kb", "--title", "Deploy freeze"]
    : ["proposal", "accept", lab.proposalId!, "-y"]
  const crash = await runCrashCli(script, ws, args, crashAt)
  const problems: Array<string> = []
  if (crash.crashedAt !== undefined && crash.signal !== "SIGKILL") problems.push(`crashed at ${crash.crashedAt} without SIGKILL`)
  if (crash.crashedAt === undefined && crash.code !== 0) problems.push(`completed with exit ${crash.code}: ${crash.stderr.slice(0, 300)}`)

  // Damage between the kill and any recovery: the journal if one is left, else an unacknowledged finished record.
  let damaged: Damage | undefined
  let damagedId: string | undefined
  if (options.damage !== undefined) {
    const txn = path.join(ws.dataDir, "txn")
    const journal = fs.existsSync(txn) ? fs.readdirSync(txn).filter((n) => !n.startsWith(".")).map((id) => ({ id, file: path.join(txn, id, "journal.json") })).find((j) => fs.existsSync(j.file)) : undefined
    const finished = fs.existsSync(path.join(txn, ".finished")) ? fs.readdirSync(path.join(txn, ".finished")).filter((n) => n.endsWith(".json")).map((n) => ({ id: n.replace(/\.(apply|revert|retire)\.json$/, ""), file: path.join(txn, ".finished", n) }))[0] : undefined
    const target = journal ?? finished
    if (target !== undefined && !(options.damage === "forge" && journal === undefined)) {
      damage(target.file, options.damage)
      damaged = options.damage
      damagedId = target.id
    }
  }

  const next = await ws.run(["lint", "--fix", "--bundle", "kb"])
  if (damagedId !== undefined) {
    if (next.code !== 1 || !next.stderr.includes(`akm proposal recover ${damagedId}`)) problems.push(`a writer did not refuse the damaged transaction (exit ${next.code}): ${next.stderr.slice(0, 300)}`)
    const health = await ws.run(["health"])
    if (health.code !== 4 || !health.stdout.includes("damaged-journal")) problems.push(`health did not report the damaged journal (exit ${health.code})`)
    const recovered = await ws.run(["proposal", "recover", damagedId, `--${options.direction ?? "rollback"}`])
    if (recovered.code !== 0) problems.push(`proposal recover failed (exit ${recovered.code}): ${recovered.stderr.slice(0, 300)}`)
    const again = await ws.run(["lint", "--fix", "--bundle", "kb"])
    if (again.stderr.includes("transaction_refused")) problems.push(`writers still refuse after recover: ${again.stderr.slice(0, 300)}`)
  } else if (next.stderr.includes("transaction_refused")) problems.push(`the next writer refused: ${next.stderr.slice(0, 300)}`)

  // The proposal under test and its record.
  const listed = (await ws.run(["proposal", "list"])).json<{ proposals: Array<{ id: string; status: string; recipe: string }> }>().proposals
  const mine = listed.filter((p) => (lab.phase === "remember" ? p.recipe === "remember" : p.id === lab.proposalId))
  if (mine.length > 1) problems.push(`${mine.length} proposals for one run`)
  const proposal = mine[0]
  const files = proposal === undefined ? [] : (await ws.run(["proposal", "show", proposal.id])).json<{ files: Array<{ path: string; afterHash: string | null }> }>().files
  const now = snapshot(kb)
  const post = postOf(pre, files)
  const state = same(now, pre) ? "pre" : proposal !== undefined && same(shape(now), shape(withDirs(post))) ? "post" : "neither"
  if (state === "neither") problems.push(`the bundle is neither the pre- nor the post-state: ${diffKeys(shape(withDirs(post)), shape(now)).slice(0, 5).join(", ")}`)
  const status = proposal?.status
  if (state === "pre" && status === "accepted") problems.push("the bytes are the pre-state but the proposal says accepted")
  if (state === "post" && status !== "accepted") problems.push(`the bytes are the post-state but the proposal says ${status}`)
  if (crash.crashedAt === undefined && damagedId === undefined && state !== "post") problems.push("a run that completed did not leave the post-state")
  const txn = path.join(ws.dataDir, "txn")
  const left = fs.existsSync(txn) ? fs.readdirSync(txn).filter((n) => n !== ".unresolved" && n !== ".finished") : []
  if (left.length > 0) problems.push(`transactions left: ${left.join(", ")}`)
  const finishedLeft = fs.existsSync(path.join(txn, ".finished")) ? fs.readdirSync(path.join(txn, ".finished")) : []
  if (finishedLeft.length > 0) problems.push(`unrecorded finished sets: ${finishedLeft.join(", ")}`)
  if (fs.existsSync(path.join(ws.dataDir, "locks", "mutation.lease"))) problems.push("the mutation lease is still held")
  if (Object.keys(now).some((k) => /\.akm-tx-/.test(k))) problems.push("a temp file is left in the bundle")
  return { crash, damaged, direction: damagedId === undefined ? undefined : (options.direction ?? "rollback"), state, status, problem: problems.length === 0 ? undefined : problems.join("; ") }
}

const same = (a: Snapshot, b: Snapshot): boolean => diffKeys(a, b).length === 0

const diffKeys = (a: Snapshot, b: Snapshot): Array<string> =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).map((k) => `${k} (${a[k] ?? "absent"} → ${b[k] ?? "absent"})`)

/** What a crash-matrix describe block runs on: the test-only CLI entry point and one lab per phase. */
export interface CrashLabs {
  readonly script: string
  readonly remember: Lab
  readonly accept: Lab
}

/** Registers the describe block's hooks that build and dispose the CrashLabs; read its fields inside tests. */
export const crashLabs = (): CrashLabs => {
  let entry: Awaited<ReturnType<typeof bundleChild>> | undefined
  let remember: Lab | undefined
  let accept: Lab | undefined
  beforeAll(async () => {
    entry = await bundleChild("cliWithCrashPoints")
    remember = await makeLab("remember")
    accept = await makeLab("accept-120")
  }, 180_000)
  afterAll(() => {
    entry?.dispose()
    remember?.dispose()
    accept?.dispose()
  })
  return {
    get script() { return entry!.script },
    get remember() { return remember! },
    get accept() { return accept! }
  }
}
