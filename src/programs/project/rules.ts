import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import { Conflict, NotFound, UsageError } from "../../domain/Errors.js"
import { fieldText } from "../../domain/ledger/index.js"
import { dueRevisits, findConflicts, scopeFindings, type DueRevisit, type RuleConflict, type ScopeFinding } from "../../domain/project/Conflicts.js"
import { renderEvolution, templateOnly, type CausedFailure, type EvolutionRefinement } from "../../domain/project/Evolve.js"
import { mandatesOf, type Mandate } from "../../domain/project/Mandates.js"
import { editRuleFrontmatter, parseRuleFile, type RuleFile, type RuleProblem } from "../../domain/project/RuleFile.js"
import { shortId } from "../../domain/Proposal.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { findRecord } from "../ledger/record.js"
import type { DirectResult } from "../proposals/direct.js"
import { hashOf, projectFileList, proposeProject } from "./files.js"

export const RULES_DIR = "rules"

export interface ProjectInput {
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
}

export interface LoadedRules {
  readonly rules: ReadonlyArray<RuleFile & { readonly text: string }>
  readonly problems: ReadonlyArray<RuleProblem>
}

/** Every `rules/**.md` of the project, parsed; a file that does not parse is a problem with its line. */
export const loadRules = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const files = yield* BundleFiles
    const found: Array<string> = []
    const visit = (dir: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        const names = yield* Effect.orElseSucceed(fs.readDirectory(path.join(target.root, dir)), () => [] as Array<string>)
        for (const name of names.sort()) {
          const rel = `${dir}/${name}`
          const info = yield* Effect.option(fs.stat(path.join(target.root, rel)))
          if (info._tag === "None") continue
          if (info.value.type === "Directory") yield* visit(rel)
          else if (name.endsWith(".md") && name.toLowerCase() !== "readme.md") found.push(rel)
        }
      })
    yield* visit(RULES_DIR)
    const rules: Array<RuleFile & { text: string }> = []
    const problems: Array<RuleProblem> = []
    for (const rel of found.sort()) {
      const text = yield* Effect.either(files.readText(target.root, rel))
      if (text._tag === "Left") {
        problems.push({ path: rel, line: 1, message: text.left.message })
        continue
      }
      const parsed = parseRuleFile(rel, text.right)
      if ("problem" in parsed) problems.push(parsed.problem)
      else rules.push({ ...parsed.rule, text: text.right })
    }
    return { rules, problems } satisfies LoadedRules as LoadedRules
  })

/** A rule named by its id, file name, stem or path. */
export const findRule = (loaded: LoadedRules, given: string) => {
  const g = given.trim().replace(/^\.\//, "")
  const stem = (p: string) => p.replace(/^.*\//, "").replace(/\.md$/, "")
  const exact = loaded.rules.filter((r) => r.id === g || r.path === g || r.path === `${g}.md` || r.path === `${RULES_DIR}/${g}` || r.path === `${RULES_DIR}/${g}.md` || stem(r.path) === g)
  if (exact.length === 1) return Effect.succeed(exact[0]!)
  if (exact.length > 1) return Effect.fail(new UsageError({ message: `'${given}' names ${exact.length} rules: ${exact.map((r) => r.path).join(", ")}`, hint: "give the rule's path" }))
  return Effect.fail(new NotFound({ what: "rule", name: given, message: `no rule '${given}' under ${RULES_DIR}/`, hint: "list them with: akm rules list" }))
}

export interface RuleSummary {
  readonly id: string
  readonly path: string
  readonly title: string
  readonly status: "active" | "superseded"
  readonly scope: ReadonlyArray<string>
  readonly supersedes: ReadonlyArray<string>
  readonly supersededBy?: string
  readonly introducedBy?: string
  readonly caused: ReadonlyArray<string>
  readonly mandates: ReadonlyArray<{ readonly must: boolean; readonly subject: string; readonly structured: boolean }>
}

const summary = (rule: RuleFile): RuleSummary => ({
  id: rule.id,
  path: rule.path,
  title: rule.title,
  status: rule.supersededBy === undefined ? "active" : "superseded",
  scope: rule.scope,
  supersedes: rule.supersedes,
  ...(rule.supersededBy === undefined ? {} : { supersededBy: rule.supersededBy }),
  ...(rule.introducedBy === undefined ? {} : { introducedBy: rule.introducedBy }),
  caused: rule.caused,
  mandates: mandatesOf(rule).map((m: Mandate) => ({ must: m.must, subject: m.subject, structured: m.structured }))
})

const today = () => new Date().toISOString().slice(0, 10)

export interface RulesList {
  readonly bundle: string
  readonly rules: ReadonlyArray<RuleSummary>
  readonly problems: ReadonlyArray<RuleProblem>
  /** Rules whose `revisit_when` is met: questions, never dropped (R-HAR-4). */
  readonly revisits: ReadonlyArray<DueRevisit>
  /** Rules with a `caused` link and no successor yet: each has an evolution waiting (R-HAR-2). */
  readonly evolutions: ReadonlyArray<string>
}

const waitingEvolution = (rule: RuleFile) => rule.caused.length > 0 && rule.supersededBy === undefined

/** `akm rules list`. */
export const rulesList = Effect.fn("rules.list")(function* (input: ProjectInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadRules(target)
  const { files } = yield* projectFileList(target)
  return {
    bundle: target.name,
    rules: loaded.rules.map(summary),
    problems: loaded.problems,
    revisits: dueRevisits(loaded.rules, files, today()),
    evolutions: loaded.rules.filter(waitingEvolution).map((r) => r.id)
  } satisfies RulesList as RulesList
})

export interface RuleShown extends RuleSummary {
  readonly bundle: string
  readonly text: string
  /** The evolution chain, oldest first: each rule this one descends from, then this one, then its successors. */
  readonly chain: ReadonlyArray<{ readonly id: string; readonly path?: string; readonly title?: string; readonly status: "active" | "superseded" | "missing" }>
  readonly revisit?: DueRevisit
}

/** The chain a rule belongs to: back along `supersedes`, forward along `superseded_by` (cycles stop). */
const chainOf = (rules: ReadonlyArray<RuleFile>, rule: RuleFile): RuleShown["chain"] => {
  const byId = new Map(rules.map((r) => [r.id, r]))
  const seen = new Set<string>([rule.id])
  const back: Array<string> = []
  for (let at: RuleFile | undefined = rule; at !== undefined;) {
    const prev: string | undefined = at.supersedes[0] ?? rules.find((r) => r.supersededBy === at!.id)?.id
    if (prev === undefined || seen.has(prev)) break
    seen.add(prev)
    back.unshift(prev)
    at = byId.get(prev)
  }
  const forward: Array<string> = []
  for (let at: RuleFile | undefined = rule; at !== undefined;) {
    const next: string | undefined = at.supersededBy ?? rules.find((r) => r.supersedes.includes(at!.id))?.id
    if (next === undefined || seen.has(next)) break
    seen.add(next)
    forward.push(next)
    at = byId.get(next)
  }
  return [...back, rule.id, ...forward].map((id) => {
    const r = byId.get(id)
    return r === undefined ? { id, status: "missing" as const } : { id, path: r.path, title: r.title, status: r.supersededBy === undefined ? "active" as const : "superseded" as const }
  })
}

/** `akm rules show <rule>`: the rule, its links and its evolution chain. */
export const rulesShow = Effect.fn("rules.show")(function* (input: ProjectInput & { readonly rule: string }) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadRules(target)
  const rule = yield* findRule(loaded, input.rule)
  const { files } = yield* projectFileList(target)
  const revisit = dueRevisits([rule], files, today())[0]
  return { bundle: target.name, ...summary(rule), text: rule.text, chain: chainOf(loaded.rules, rule), ...(revisit === undefined ? {} : { revisit }) } satisfies RuleShown as RuleShown
})

export interface RuleWrite {
  readonly bundle: string
  readonly rule: string
  readonly path: string
  readonly changed: boolean
  readonly proposal?: DirectResult
}

/**
 * `akm rules caused <rule> <failure>` (R-HAR-1): links the failure to the rule
 * whose enforcement caused it. Frontmatter only; the body stays byte-identical.
 */
export const rulesCaused = Effect.fn("rules.caused")(function* (input: ProjectInput & { readonly rule: string; readonly failure: string }) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadRules(target)
  const rule = yield* findRule(loaded, input.rule)
  const { record } = yield* findRecord(target, input.failure)
  if (record.kind !== "failure") return yield* new UsageError({ message: `${record.kind}/${record.id} is not a failure`, hint: "link a failure record: akm ledger list --kind failure" })
  const ref = `failure/${record.id}`
  if (rule.caused.includes(ref)) return { bundle: target.name, rule: rule.id, path: rule.path, changed: false } satisfies RuleWrite as RuleWrite
  const after = editRuleFrontmatter(rule.text, [{ op: "append", key: "caused", value: ref }])
  const proposal = yield* proposeProject(target, {
    title: `Rule ${rule.id} caused ${ref}`,
    recipe: "rules-caused",
    changeClass: "mechanical",
    changes: [{ bundle: target.name, path: rule.path, beforeHash: yield* hashOf(target, rule.path, true), after }]
  })
  return { bundle: target.name, rule: rule.id, path: rule.path, changed: true, proposal } satisfies RuleWrite as RuleWrite
})

export interface RuleEvolution {
  readonly bundle: string
  readonly from: string
  readonly to: string
  readonly path: string
  readonly failures: ReadonlyArray<string>
  readonly text: string
  readonly proposal: DirectResult
}

/** The next free rule number: one more than the largest numeric id or `NN-` prefix. */
const nextNumber = (rules: ReadonlyArray<RuleFile>): string => {
  let max = 0
  for (const r of rules) {
    if (/^\d+$/.test(r.id)) max = Math.max(max, Number(r.id))
    const prefix = /^(\d+)/.exec(r.path.replace(/^.*\//, ""))
    if (prefix !== null) max = Math.max(max, Number(prefix[1]))
  }
  return String(max + 1).padStart(2, "0")
}

/**
 * `akm rules evolve <rule>` (R-HAR-2): drafts A' from A and the failures it
 * caused, marks A `superseded_by` A' (A's body untouched, A kept), and sends
 * both files as one semantic proposal — the human reviews and accepts.
 */
export const rulesEvolve = Effect.fn("rules.evolve")(function* (input: ProjectInput & { readonly rule: string }, refine: EvolutionRefinement = templateOnly) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadRules(target)
  const rule = yield* findRule(loaded, input.rule)
  if (rule.supersededBy !== undefined) return yield* new Conflict({ message: `rule ${rule.id} is already superseded by rule ${rule.supersededBy}`, hint: `evolve the current rule instead: ${shellCommand("akm rules evolve", rule.supersededBy)}` })
  if (rule.caused.length === 0) return yield* new UsageError({ message: `rule ${rule.id} has caused no recorded failure`, hint: `link one first: ${shellCommand("akm rules caused", rule.id, "<failure id>")}` })
  const failures: Array<CausedFailure> = []
  for (const ref of rule.caused) {
    const found = yield* Effect.either(findRecord(target, ref))
    if (found._tag === "Left") return yield* new NotFound({ what: "failure", name: ref, message: `${rule.path} says it caused ${ref}, which is not in the ledger`, hint: "fix the `caused` link, or record the failure with akm ledger add failure" })
    const record = found.right.record
    failures.push({ ref, title: record.title, symptom: fieldText(record, "symptom"), rootCause: fieldText(record, "root_cause"), fix: fieldText(record, "fix"), module: fieldText(record, "module") })
  }
  const drafted = renderEvolution(rule, failures, nextNumber(loaded.rules))
  if ("problem" in drafted) return yield* new UsageError({ message: `${rule.path}: ${drafted.problem}`, hint: `give rule ${rule.id} a scope (scope: ["src/…/**"]) and run it again` })
  const evolved = refine(drafted, { rule, failures })
  if (evolved.scope.length === 0) return yield* new UsageError({ message: `the evolved rule ${evolved.path} has no scope`, hint: "every synthesized rule needs a non-empty scope" })
  if (loaded.rules.some((r) => r.path === evolved.path)) return yield* new Conflict({ message: `${evolved.path} exists already`, hint: "rename or remove it, then run it again" })
  const marked = editRuleFrontmatter(rule.text, [{ op: "set", key: "superseded_by", value: evolved.id }])
  const proposal = yield* proposeProject(target, {
    title: `Evolve rule ${rule.id} into rule ${evolved.id} (satisfying ${failures.map((f) => f.ref).join(", ")})`,
    recipe: "rules-evolve",
    changeClass: "semantic",
    changes: [
      { bundle: target.name, path: evolved.path, beforeHash: null, after: evolved.text },
      { bundle: target.name, path: rule.path, beforeHash: yield* hashOf(target, rule.path, true), after: marked }
    ]
  })
  return { bundle: target.name, from: rule.id, to: evolved.id, path: evolved.path, failures: failures.map((f) => f.ref), text: evolved.text, proposal } satisfies RuleEvolution as RuleEvolution
})

export interface RulesConflicts {
  readonly bundle: string
  readonly rules: number
  readonly files: number
  readonly conflicts: ReadonlyArray<RuleConflict>
  readonly findings: ReadonlyArray<ScopeFinding | (RuleProblem & { readonly code: "invalid-rule" })>
  readonly revisits: ReadonlyArray<DueRevisit>
  /** No conflict (findings and revisits are reported, and do not fail the check). */
  readonly ok: boolean
}

/** `akm rules conflicts` (R-HAR-3): exits 1 on a conflict; reports, never resolves. */
export const rulesConflicts = Effect.fn("rules.conflicts")(function* (input: ProjectInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadRules(target)
  const { files } = yield* projectFileList(target)
  const conflicts = findConflicts(loaded.rules, files)
  return {
    bundle: target.name,
    rules: loaded.rules.length,
    files: files.length,
    conflicts,
    findings: [...loaded.problems.map((p) => ({ ...p, code: "invalid-rule" as const })), ...scopeFindings(loaded.rules, files)],
    revisits: dueRevisits(loaded.rules, files, today()),
    ok: conflicts.length === 0
  } satisfies RulesConflicts as RulesConflicts
})

export const proposalHint = (p: DirectResult | undefined): string | undefined => (p === undefined ? undefined : p.hint ?? `undo: akm proposal revert ${shortId(p.id)}`)
