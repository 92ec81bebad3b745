import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import { NotFound, UsageError } from "../../domain/Errors.js"
import { fieldText, normaliseModule, occurrenceDates, slugOf, type LedgerRecord } from "../../domain/ledger/index.js"
import { sha256Hex } from "../../domain/Proposal.js"
import { redactFields } from "../../domain/Redaction.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { authorRedacted } from "../proposals/authorRedacted.js"
import { authoringConflict } from "../proposals/direct.js"
import { propose } from "../proposals/propose.js"
import { resolveBundle } from "../scan.js"
import { resolveProjectBundle, type ProjectTarget } from "./projectBundle.js"
import { createRecord, findRecord, type LedgerWrite } from "./record.js"
import { loadLedger, type LoadedRecord } from "./store.js"
import { ledgerRedactor } from "./write.js"

/** R-DIS-1: a failure seen this many independent times is asked about. */
export const DISTIL_THRESHOLD = 2

export type DistilChoice = "rule" | "skill" | "neither"
export const DISTIL_CHOICES: ReadonlyArray<DistilChoice> = ["rule", "skill", "neither"]

/** The pre-drafted answers (R-DIS-2), rendered from the record alone: the same record gives the same text. */
export interface DistilDraft {
  readonly rule: { readonly id: string; readonly path: string; readonly title: string; readonly scope: ReadonlyArray<string>; readonly text: string }
  readonly skill: { readonly name: string; readonly path: string; readonly description: string; readonly body: string }
  readonly enforcement: string
  readonly test: string
}

export interface DistilItem {
  readonly id: string
  readonly title: string
  readonly fingerprint: string
  readonly module: string
  readonly occurrences: number
  readonly dates: ReadonlyArray<string>
  readonly question: string
  /** A rule or skill was chosen before and the failure has recurred since. */
  readonly recurredAfter?: { readonly choice: DistilChoice; readonly decided: string }
  readonly draft: DistilDraft
}

interface Decision {
  readonly fingerprint: string
  readonly choice: DistilChoice
  readonly date: string
}

const decisionsOf = (loaded: ReadonlyArray<LoadedRecord>): ReadonlyArray<Decision> =>
  loaded.flatMap((l) => {
    if (l._tag !== "Ok" || l.record.kind !== "decision") return []
    const fp = l.record.meta?.["decides"]
    const choice = l.record.meta?.["choice"]
    if (typeof fp !== "string" || typeof choice !== "string" || !(DISTIL_CHOICES as ReadonlyArray<string>).includes(choice)) return []
    return [{ fingerprint: fp, choice: choice as DistilChoice, date: occurrenceDates(l.record)[0] ?? "0000-00-00" }]
  })

/** `src/db` → `src/db/**`; a file module stays itself. */
export const scopeGlob = (module: string): string => {
  const clean = normaliseModule(module)
  return /\.[a-z0-9]+$/.test(path.posix.basename(clean)) ? clean : `${clean}/**`
}

const joinDates = (dates: ReadonlyArray<string>): string =>
  dates.length <= 1 ? (dates[0] ?? "") : `${dates.slice(0, -1).join(", ")} and ${dates[dates.length - 1]}`

const COUNT_WORDS = ["never", "once", "twice", "three times", "four times", "five times"]

/** R-DIS-1's question: "This has now happened twice — 2026-08-14 and 2026-08-26. Should it become a rule, a skill, or neither?" */
export const distilQuestion = (record: LedgerRecord): string => {
  const dates = record.occurrences.map((o) => o.date).sort()
  const count = COUNT_WORDS[dates.length] ?? `${dates.length} times`
  return `This has now happened ${count} — ${joinDates([...new Set(dates)])}. Should it become a rule, a skill, or neither?`
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

/** R-DIS-2: rule (purpose = root cause, applies to = the module's glob, mandate = the fix), enforcement and the test. */
export const draftFor = (record: LedgerRecord, ruleNumber: string): DistilDraft => {
  const module = fieldText(record, "module") ?? "."
  const errorClass = oneLine(fieldText(record, "error_class") ?? "the failure")
  const operation = oneLine(fieldText(record, "operation") ?? "the operation")
  const trigger = oneLine(fieldText(record, "trigger") ?? operation)
  const rootCause = fieldText(record, "root_cause") ?? "unknown"
  const fix = oneLine(fieldText(record, "fix") ?? "unknown")
  const symptom = oneLine(fieldText(record, "symptom") ?? "")
  const glob = scopeGlob(module)
  const dates = occurrenceDates(record)
  const enforcement = `A CI check on every change under \`${glob}\` that reproduces the trigger (${trigger}) and fails the build when \`${errorClass}\` appears.`
  const test = `A regression test for \`${operation}\` in \`${normaliseModule(module)}\` that reproduces the trigger (${trigger}) and asserts it completes without \`${errorClass}\`; it would have failed on ${joinDates(dates)}.`
  const slug = slugOf(`${errorClass} ${normaliseModule(module).split("/").pop() ?? ""}`)
  const title = `Prevent ${errorClass} in ${normaliseModule(module)}`
  const body = [
    `# ${title}`,
    "",
    "## Purpose",
    "",
    rootCause,
    "",
    "## Applies to",
    "",
    `\`${glob}\``,
    "",
    "## Mandatory rules",
    "",
    `1. ${fix}`,
    "",
    "## Enforcement",
    "",
    enforcement,
    "",
    "## Test that would have caught it",
    "",
    test,
    "",
    `Recorded as failure/${record.id} (${dates.length} sightings: ${joinDates(dates)}).`,
    ""
  ].join("\n")
  const rulePath = `rules/${ruleNumber}-${slug}.md`
  const ruleText = `---\nid: "${ruleNumber}"\nintroduced_by: failure/${record.id}\nscope: ["${glob}"]\n---\n\n${body}`
  const skillName = `fix-${slug}`.slice(0, 64).replace(/-+$/, "")
  const description = `Diagnose and fix ${errorClass} in ${normaliseModule(module)}. Use when ${operation} fails with ${errorClass}${symptom === "" ? "" : ` or shows: ${symptom.slice(0, 200)}`}.`.slice(0, 1000)
  const skillBody = [
    `# Fix ${errorClass} in ${normaliseModule(module)}`,
    "",
    "## When to use",
    "",
    `When \`${operation}\` fails with \`${errorClass}\`.`,
    "",
    "## Steps",
    "",
    `1. Confirm the symptom: ${symptom === "" ? errorClass : symptom}`,
    `2. Check the known root cause: ${oneLine(rootCause)}`,
    `3. Apply the fix: ${fix}`,
    `4. Verify: reproduce the trigger (${trigger}) again; it completes without \`${errorClass}\`.`,
    "",
    `Recorded as failure/${record.id}.`,
    ""
  ].join("\n")
  return {
    rule: { id: ruleNumber, path: rulePath, title, scope: [glob], text: ruleText },
    skill: { name: skillName, path: `skills/${skillName}/SKILL.md`, description, body: skillBody },
    enforcement,
    test
  }
}

/** The next free rule number: one more than the largest `NN-` file prefix or numeric `id:` under rules/. */
export const nextRuleNumber = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const dir = path.join(target.root, "rules")
    const names = yield* Effect.orElseSucceed(fs.readDirectory(dir), () => [] as Array<string>)
    let max = 0
    for (const name of names) {
      const prefix = /^(\d+)/.exec(name)
      if (prefix !== null) max = Math.max(max, Number(prefix[1]))
      if (!name.endsWith(".md")) continue
      const text = yield* Effect.orElseSucceed(fs.readFileString(path.join(dir, name)), () => "")
      const id = /^id:\s*["']?(\d+)["']?\s*$/m.exec(text.startsWith("---") ? text.slice(0, text.indexOf("\n---", 3) + 1) : "")
      if (id !== null) max = Math.max(max, Number(id[1]))
    }
    return String(max + 1).padStart(2, "0")
  })

/**
 * Distil detect (R-DIS-1, R-CHK-1): failures seen at least twice with no
 * decision — "neither" is final for the fingerprint; a rule or skill is asked
 * about again only when the failure recurs after it was chosen.
 */
export const detectRecurrences = (loaded: ReadonlyArray<LoadedRecord>, ruleNumber: string): ReadonlyArray<DistilItem> => {
  const decisions = decisionsOf(loaded)
  const items: Array<DistilItem> = []
  for (const l of loaded) {
    if (l._tag !== "Ok" || l.record.kind !== "failure" || l.record.fingerprint === undefined) continue
    const record = l.record
    const fp: string = l.record.fingerprint
    if (record.occurrences.length < DISTIL_THRESHOLD) continue
    const mine = decisions.filter((d) => d.fingerprint === record.fingerprint)
    if (mine.some((d) => d.choice === "neither")) continue
    const latest = [...mine].sort((a, b) => a.date.localeCompare(b.date)).pop()
    if (latest !== undefined && !record.occurrences.some((o) => o.date > latest.date)) continue
    items.push({
      id: record.id,
      title: record.title,
      fingerprint: fp,
      module: fieldText(record, "module") ?? "",
      occurrences: record.occurrences.length,
      dates: occurrenceDates(record),
      question: distilQuestion(record),
      ...(latest === undefined ? {} : { recurredAfter: { choice: latest.choice, decided: latest.date } }),
      draft: draftFor(record, ruleNumber)
    })
  }
  return items.sort((a, b) => b.occurrences - a.occurrences || a.id.localeCompare(b.id))
}

export interface DistilResult {
  readonly bundle: string
  readonly items: ReadonlyArray<DistilItem>
}

/** `akm distil`: the recurrences waiting for a decision, each with its drafts. */
export const distil = Effect.fn("distil")(function* (input: { readonly bundle?: string | undefined; readonly cwd?: string | undefined } = {}) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadLedger(target.root)
  const items = detectRecurrences(loaded, yield* nextRuleNumber(target))
  return { bundle: target.name, items } satisfies DistilResult as DistilResult
})

export interface DecideInput {
  readonly id: string
  readonly as: DistilChoice
  readonly note: string
  readonly cost?: string | undefined
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
}

export interface DecideResult {
  readonly decision: LedgerWrite
  readonly choice: DistilChoice
  readonly fingerprint: string
  /** The pending proposal for the rule or skill. */
  readonly proposal?: { readonly id: string; readonly path: string; readonly status: string; readonly hint: string }
}

/**
 * `akm distil decide <id> --as rule|skill|neither --note …` (R-DIS-3): a
 * `decision` record with every required field; `rule` and `skill` also leave
 * the drafted file as a pending proposal for review.
 */
export const distilDecide = Effect.fn("distil.decide")(function* (input: DecideInput) {
  const note = input.note.trim()
  if (note === "") return yield* new UsageError({ message: "a decision needs its reason", hint: "say why with --note \"…\"" })
  const target = yield* resolveProjectBundle(input)
  const { record } = yield* findRecord(target, input.id)
  if (record.kind !== "failure" || record.fingerprint === undefined) {
    return yield* new NotFound({ what: "failure", name: input.id, message: `${record.kind}/${record.id} is not a failure with a fingerprint`, hint: "decide about the failures `akm distil` lists" })
  }
  const fp = record.fingerprint
  const { redact } = yield* ledgerRedactor(target)
  let proposal: DecideResult["proposal"]
  if (input.as !== "neither") {
    const draft = draftFor(record, yield* nextRuleNumber(target))
    const { info, adapter } = yield* resolveBundle(target.name)
    const files = yield* BundleFiles
    const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    const ctx = files.context(info, walked.files)
    const create = adapter.create!
    const changes = input.as === "rule"
      ? yield* authorRedacted(create, {
        type: "rule",
        conceptId: draft.rule.path.replace(/\.md$/, ""),
        title: redact(draft.rule.title),
        body: redact(draft.rule.text.slice(draft.rule.text.indexOf("\n---\n", 3) + 5).trimStart()),
        fields: redactFields({ id: draft.rule.id, introduced_by: `failure/${record.id}`, scope: draft.rule.scope }, redact)
      }, ctx).pipe(Effect.mapError(authoringConflict))
      : yield* authorRedacted(create, {
        type: "skill",
        conceptId: `skills/${draft.skill.name}`,
        title: redact(draft.skill.name),
        description: redact(draft.skill.description),
        body: redact(draft.skill.body)
      }, ctx).pipe(Effect.mapError(authoringConflict))
    const { proposal: made } = yield* propose({
      title: redact(`Distil: ${record.title} as a ${input.as}`),
      recipe: "distil",
      changeClass: "semantic",
      changes,
      evidence: [{ kind: "ledger", id: `failure/${record.id}`, hash: sha256Hex(fp) }]
    })
    const short = made.id.slice(0, 8)
    proposal = {
      id: made.id,
      path: path.join(target.root, changes[0]!.path),
      status: made.status,
      hint: `review it: ${shellCommand("akm proposal show", short)}, then ${shellCommand("akm proposal accept", short)}`
    }
  }
  const alternatives = DISTIL_CHOICES.filter((c) => c !== input.as)
  const decision = yield* createRecord(target, redact, {
    kind: "decision",
    id: `treat-${fp}-as-${input.as}`,
    title: `Treat ${record.title} as ${input.as === "neither" ? "neither a rule nor a skill" : `a ${input.as}`}`,
    fields: { what: `Treat ${fp} as ${input.as}`, alternatives, why: note, cost_accepted: input.cost?.trim() || "none stated" },
    occurrences: [{ date: new Date().toISOString().slice(0, 10), source: "self-report" }],
    meta: { decides: fp, choice: input.as, about: `failure/${record.id}`, ...(proposal === undefined ? {} : { proposal: proposal.id }) }
  })
  return { decision, choice: input.as, fingerprint: fp, ...(proposal === undefined ? {} : { proposal }) } satisfies DecideResult as DecideResult
})
