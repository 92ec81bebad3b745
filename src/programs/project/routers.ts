import { Effect } from "effect"
import { ConfigInvalid, Conflict, UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { enabledTargets, type RouterTarget } from "../../domain/project/RouterTargets.js"
import { checkRouter, CONTRACT_PATH, largestSections, parseContract, planRouter, renderRouterInner, utf8Bytes, type Contract, type RouterDrift, type RouterPlan } from "../../domain/project/Routers.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { CONFIG_FILE, readProjectConfig } from "../ledger/store.js"
import type { DirectResult } from "../proposals/direct.js"
import { hashOf, proposeProject, readOptional, refuseOutside } from "./files.js"
import type { ProjectInput } from "./rules.js"

/** The contract and the enabled targets; a contract without Identity or a bad extra target stops here. */
const prepare = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const { config } = yield* readProjectConfig(target.root)
    const { targets, problems } = enabledTargets(config)
    if (problems.length > 0) {
      const p = problems[0]!
      return yield* new ConfigInvalid({ file: `${target.root}/${CONFIG_FILE}`, path: p.key, reason: p.message, hint: "fix routers.extraTargets in .ai/config.json (see docs/project-knowledge.md)" })
    }
    const text = yield* readOptional(target, CONTRACT_PATH)
    if (text === undefined) return yield* new UsageError({ message: `${CONTRACT_PATH} is missing: routers are generated from it`, hint: "run `akm init project` to create it, then edit it" })
    const parsed = parseContract(text)
    if ("problem" in parsed) return yield* new UsageError({ message: `${parsed.problem.path}:${parsed.problem.line}: ${parsed.problem.message}`, hint: "add a `## Identity` section saying what this system is" })
    return { contract: parsed.contract, targets }
  })

const selectTargets = (targets: ReadonlyArray<RouterTarget>, wanted: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (wanted.length === 0) return targets
    const unknown = wanted.filter((w) => !targets.some((t) => t.id === w || t.path === w))
    if (unknown.length > 0) return yield* new UsageError({ message: `unknown router target ${unknown.map((u) => `'${u}'`).join(", ")}`, hint: `use one of: ${targets.map((t) => t.id).join(", ")}` })
    return targets.filter((t) => wanted.includes(t.id) || wanted.includes(t.path))
  })

/** Refuses a target whose file would be over the tool's budget, naming the largest sections (R-PRJ-1, Codex's 32 KiB). */
const checkBudget = (contract: Contract, target: RouterTarget, after: string) =>
  target.maxBytes === undefined || utf8Bytes(after) <= target.maxBytes
    ? Effect.void
    : Effect.fail(new Conflict({
      message: `${target.path} would be ${utf8Bytes(after)} bytes, over ${target.tool}'s ${target.maxBytes}-byte budget; the largest sections: ${largestSections(renderRouterInner(contract, target)).map((s) => `${s.name} (${s.bytes} bytes)`).join(", ")}`,
      hint: `shorten those sections of ${CONTRACT_PATH} (move detail into docs/ and link it); nothing was written`
    }))

export interface RouterFileResult {
  readonly target: string
  readonly path: string
  readonly action: "created" | "updated" | "unchanged" | "adopt-pending" | "needs-adopt"
  readonly bytes: number
  readonly sections?: ReadonlyArray<string>
}

export interface RoutersWrite {
  readonly bundle: string
  readonly files: ReadonlyArray<RouterFileResult>
  /** The mechanical proposal (generated regions only). */
  readonly proposal?: DirectResult
  /** The takeover proposal (--adopt), which waits for review. */
  readonly adoption?: DirectResult
  /** Every file is written or unchanged (none waits for --adopt). */
  readonly ok: boolean
}

/**
 * `akm routers write [--adopt] [--target T…]` (R-PRJ-1/2): renders each
 * target from the contract. Only generated regions change (a mechanical
 * proposal); a file without markers is left alone unless --adopt, which makes
 * a semantic proposal keeping its text above the region. Over-budget or
 * broken files stop the whole write before anything is proposed.
 */
export const routersWrite = Effect.fn("routers.write")(function* (input: ProjectInput & { readonly adopt?: boolean | undefined; readonly targets?: ReadonlyArray<string> | undefined }) {
  const target = yield* resolveProjectBundle(input)
  const { contract, targets: all } = yield* prepare(target)
  const targets = yield* selectTargets(all, input.targets ?? [])
  const mechanical: Array<FileChange> = []
  const adoptions: Array<FileChange> = []
  const files: Array<RouterFileResult> = []
  const plans: Array<{ target: RouterTarget; plan: RouterPlan; current: string | undefined }> = []
  for (const t of targets) {
    yield* refuseOutside(target, t.path)
    const current = yield* readOptional(target, t.path)
    const plan = planRouter(contract, t, current)
    if (plan._tag === "Broken") return yield* new Conflict({ message: `${t.path}:${plan.line}: ${plan.message}`, hint: "fix the markers by hand (one begin line, then one end line), then run it again; nothing was written" })
    if (plan._tag !== "Unchanged") yield* checkBudget(contract, t, plan.after)
    plans.push({ target: t, plan, current })
  }
  for (const { target: t, plan, current } of plans) {
    const before = yield* hashOf(target, t.path, current !== undefined)
    switch (plan._tag) {
      case "Unchanged":
        files.push({ target: t.id, path: t.path, action: "unchanged", bytes: utf8Bytes(current ?? "") })
        break
      case "Create":
        mechanical.push({ bundle: target.name, path: t.path, beforeHash: before, after: plan.after })
        files.push({ target: t.id, path: t.path, action: "created", bytes: utf8Bytes(plan.after) })
        break
      case "Update":
        mechanical.push({ bundle: target.name, path: t.path, beforeHash: before, after: plan.after })
        files.push({ target: t.id, path: t.path, action: "updated", bytes: utf8Bytes(plan.after), sections: plan.sections })
        break
      case "Adopt":
        if (input.adopt === true) {
          adoptions.push({ bundle: target.name, path: t.path, beforeHash: before, after: plan.after })
          files.push({ target: t.id, path: t.path, action: "adopt-pending", bytes: utf8Bytes(plan.after) })
        } else files.push({ target: t.id, path: t.path, action: "needs-adopt", bytes: utf8Bytes(current ?? "") })
        break
    }
  }
  const proposal = mechanical.length === 0 ? undefined : yield* proposeProject(target, { title: `Write ${mechanical.length} router file${mechanical.length === 1 ? "" : "s"} from ${CONTRACT_PATH}`, recipe: "routers", changeClass: "mechanical", changes: mechanical })
  const adoption = adoptions.length === 0 ? undefined : yield* proposeProject(target, { title: `Take over ${adoptions.map((c) => c.path).join(", ")} as generated router${adoptions.length === 1 ? "" : "s"}`, recipe: "routers-adopt", changeClass: "semantic", changes: adoptions })
  return {
    bundle: target.name,
    files,
    ...(proposal === undefined ? {} : { proposal }),
    ...(adoption === undefined ? {} : { adoption }),
    ok: !files.some((f) => f.action === "needs-adopt")
  } satisfies RoutersWrite as RoutersWrite
})

export interface RoutersCheck {
  readonly bundle: string
  readonly checked: ReadonlyArray<{ readonly target: string; readonly path: string; readonly bytes: number }>
  readonly drift: ReadonlyArray<RouterDrift>
  readonly ok: boolean
}

/** The router drift checker for a project (also run by `akm lint` through the adapter). */
export const checkRouters = (target: ProjectTarget, wanted: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const { contract, targets: all } = yield* prepare(target)
    const targets = yield* selectTargets(all, wanted)
    const drift: Array<RouterDrift> = []
    const checked: Array<RoutersCheck["checked"][number]> = []
    for (const t of targets) {
      const current = yield* Effect.catchAll(readOptional(target, t.path), (e) => Effect.succeed(`\u0000unreadable: ${e.message}`))
      if (current?.startsWith("\u0000unreadable") === true) {
        drift.push({ path: t.path, target: t.id, sections: ["unreadable"], message: current.slice(1) })
        continue
      }
      checked.push({ target: t.id, path: t.path, bytes: utf8Bytes(current ?? "") })
      const found = checkRouter(contract, t, current)
      if (found !== undefined) drift.push(found)
    }
    return { bundle: target.name, checked, drift, ok: drift.length === 0 } satisfies RoutersCheck as RoutersCheck
  })

/** `akm routers check` (R-PRJ-1): exits 1 naming each drifted file and section. */
export const routersCheck = Effect.fn("routers.check")(function* (input: ProjectInput & { readonly targets?: ReadonlyArray<string> | undefined }) {
  return yield* checkRouters(yield* resolveProjectBundle(input), input.targets ?? [])
})
