import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import { NotFound, UsageError } from "../../domain/Errors.js"
import { fieldText, idSlug, LEDGER_DIR, type LedgerRecord } from "../../domain/ledger/index.js"
import { dueRevisits } from "../../domain/project/Conflicts.js"
import { batchQuestions, type PriorAnswer, type Question, type QuestionBatch } from "../../domain/scope/Questions.js"
import { GitHistory } from "../../services/GitHistory.js"
import { isOpen } from "../brief/items.js"
import { detectRecurrences } from "../ledger/distil.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { createRecord, findRecord, type LedgerWrite } from "../ledger/record.js"
import { CONFIG_FILE, loadLedger, readProjectConfig } from "../ledger/store.js"
import { hashAsRead, ledgerRedactor, recordChange, renderRedacted, writeLedger } from "../ledger/write.js"
import { projectFileList, refuseOutside } from "../project/files.js"
import { loadRules, RULES_DIR, type ProjectInput } from "../project/rules.js"
import { derivedCache } from "./derivedCache.js"

const today = (): string => new Date().toISOString().slice(0, 10)
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

export interface QuestionsResult extends QuestionBatch {
  readonly bundle: string
}

/** Every question the project has now, and every answer it already holds (R-SCP-1, R-SCP-4). */
const gather = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const loaded = yield* loadLedger(target.root)
    const questions: Array<Question> = []
    // The drafts' rule number does not matter here: the question is the same.
    for (const item of detectRecurrences(loaded, "00")) {
      questions.push({
        id: `failure/${item.id}`,
        source: "recurrence",
        asked: `${item.title}: ${item.question}`,
        path: `.ai/ledger/failure/${item.id}.md`,
        count: item.occurrences,
        answerWith: `akm distil decide failure/${item.id} --as rule|skill|neither --note "why"`
      })
    }
    const prior: Array<PriorAnswer> = []
    for (const l of loaded) {
      if (l._tag !== "Ok") continue
      const r = l.record
      if (r.kind === "question") {
        const asked = oneLine(fieldText(r, "asked") ?? r.title)
        if (isOpen(r)) {
          const blocks = oneLine(fieldText(r, "blocks") ?? "")
          questions.push({ id: `question/${r.id}`, source: "open-question", asked, path: l.file.path, count: 0, ...(blocks === "" ? {} : { blocks }), answerWith: `akm questions answer question/${r.id} --answer "…"` })
        } else {
          const about = r.meta?.["about"]
          prior.push({ ref: `question/${r.id}`, asked, answer: oneLine(fieldText(r, "answer") ?? ""), ...(typeof about === "string" ? { about } : {}) })
        }
      } else if (r.kind === "decision") {
        prior.push({ ref: `decision/${r.id}`, asked: oneLine(`${r.title} ${fieldText(r, "what") ?? ""}`), answer: oneLine(fieldText(r, "why") ?? fieldText(r, "what") ?? r.title) })
      }
    }
    const rules = yield* loadRules(target)
    // The tracked files matter only to a rule with revisit_when (its pathMissing glob).
    const usesFiles = rules.rules.some((r) => r.revisitWhen !== undefined)
    const files = usesFiles ? (yield* projectFileList(target)).files : []
    for (const due of dueRevisits(rules.rules, files, today())) {
      questions.push({ id: `revisit/${due.rule}`, source: "revisit", asked: oneLine(due.question), path: due.path, count: 0, answerWith: `akm questions answer revisit/${due.rule} --answer "…" --route-to ${due.path}` })
    }
    return { questions, prior, usesFiles }
  })

/**
 * What gather reads: the ledger, the rules and the project config (the
 * date is in the key: revisits fall due). Bump the version when what gather
 * derives changes, so an older cache is not read as the new shape.
 */
const GATHER_INPUTS = [LEDGER_DIR, RULES_DIR, CONFIG_FILE]
const GATHER_VERSION = "questions-1"

/**
 * gather, read from the workspace's cache while the ledger, the rules and
 * the config have the same stats (2,000 records cost a walk of stats, not
 * 2,000 parses). A rule that revisits when a path goes missing reads the
 * tracked files, which the stats do not cover: then it is gathered afresh.
 */
const gatherCached = (target: ProjectTarget) =>
  derivedCache(target, "questions", GATHER_INPUTS, `${GATHER_VERSION} ${today()}`, Effect.map(gather(target), ({ questions, prior, usesFiles }) => ({ value: { questions, prior }, cacheable: !usesFiles })))

/** The current batch: at most the interrupt budget, ranked; the rest kept open; matches of prior answers shown with them. */
export const questionBatch = (target: ProjectTarget, budget?: number) =>
  Effect.gen(function* () {
    const { config } = yield* readProjectConfig(target.root)
    const { questions, prior } = yield* gatherCached(target)
    return { bundle: target.name, ...batchQuestions(questions, prior, budget ?? config.interruptBudget) } satisfies QuestionsResult as QuestionsResult
  })

/** `akm questions [--limit N]`: this pass's batch (R-SCP-1), nothing asked twice (R-SCP-4). */
export const questions = Effect.fn("questions")(function* (input: ProjectInput & { readonly limit?: number | undefined } = {}) {
  if (input.limit !== undefined && (!Number.isInteger(input.limit) || input.limit < 0)) return yield* new UsageError({ message: `--limit must be 0 or more, not ${input.limit}`, hint: "e.g. --limit 3" })
  return yield* questionBatch(yield* resolveProjectBundle(input), input.limit)
})

export interface AnswerInput extends ProjectInput {
  readonly id: string
  readonly answer: string
  readonly routeTo?: string | undefined
  readonly by?: string | undefined
}

export interface AnswerResult {
  readonly bundle: string
  readonly question: string
  readonly record: LedgerWrite
}

/**
 * `akm questions answer <id> --answer "…" [--route-to FILE] [--by NAME]`
 * (R-SCP-4): a `question` record with every required field — the open
 * question's own record, else a new one about the question id — so the
 * question is never asked again.
 */
export const answerQuestion = Effect.fn("questions.answer")(function* (input: AnswerInput) {
  const answer = input.answer.trim()
  if (answer === "") return yield* new UsageError({ message: "an answer cannot be empty", hint: "give it with --answer \"…\"" })
  const target = yield* resolveProjectBundle(input)
  const id = input.id.trim().replace(/^\.ai\/ledger\//, "").replace(/\.md$/, "")
  const { questions: all } = yield* gather(target)
  const question = all.find((q) => q.id === id) ?? all.find((q) => q.id.endsWith(`/${id}`))
  if (question === undefined) {
    return yield* new NotFound({ what: "question", name: input.id, message: `no open question '${input.id}' in project '${target.name}'`, hint: "list them with: akm questions (ids are printed there)" })
  }
  if (question.source === "recurrence") {
    return yield* new UsageError({ message: `${question.id} is a recurring failure: it is answered with a decision`, hint: question.answerWith })
  }
  const routed = input.routeTo?.trim()
  if (routed !== undefined && routed !== "") {
    const rel = path.isAbsolute(routed) ? path.relative(target.root, routed) : routed
    yield* refuseOutside(target, rel)
    const fs = yield* FileSystem
    if (!(yield* Effect.orElseSucceed(fs.exists(path.join(target.root, rel)), () => false))) {
      return yield* new UsageError({ message: `--route-to ${routed}: no such file in the project`, hint: "write the answer into the file first, then name it (a path relative to the project)" })
    }
  }
  const routedTo = routed === undefined || routed === "" ? undefined : (path.isAbsolute(routed) ? path.relative(target.root, routed) : routed).split(path.sep).join("/")
  const by = input.by?.trim() || (yield* (yield* GitHistory).userName(target.root))
  if (by === undefined || by === "") return yield* new UsageError({ message: "who answered it? git has no user.name here", hint: "give it with --by NAME (or set git config user.name)" })
  const { redact, warnings } = yield* ledgerRedactor(target)
  const fields = { asked: question.asked, answer, answered_by: by, date: today(), ...(routedTo === undefined ? {} : { routed_to: routedTo }) }
  if (question.source === "open-question") {
    const { file, record } = yield* findRecord(target, question.id)
    const next: LedgerRecord = { ...record, fields: { ...record.fields, ...fields } }
    const made = yield* writeLedger(target, redact(`Ledger: answered ${record.title}`), [recordChange(target, file.path, yield* hashAsRead(target, file), renderRedacted(next, redact))])
    const write: LedgerWrite = { bundle: target.name, kind: "question", id: record.id, path: `${target.root}/${file.path}`, created: false, changed: true, occurrences: record.occurrences.length, candidates: [], proposal: made.id, warnings }
    return { bundle: target.name, question: question.id, record: write } satisfies AnswerResult as AnswerResult
  }
  const record = yield* createRecord(target, redact, {
    kind: "question",
    id: idSlug(question.asked),
    title: question.asked.length <= 120 ? question.asked : `${question.asked.slice(0, 119)}…`,
    fields,
    occurrences: [{ date: today(), source: "self-report" }],
    meta: { about: question.id }
  }, warnings)
  return { bundle: target.name, question: question.id, record } satisfies AnswerResult as AnswerResult
})
