import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import type { Style } from "./render.js"
import { answerQuestion, questions, type AnswerResult, type QuestionsResult } from "../programs/scope/questions.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

/** The batch as `akm questions` and the end of `akm everything` print it. */
export const questionsText = (r: QuestionsResult, s: Style): string => {
  const lines: Array<string> = []
  if (r.asked.length === 0) lines.push(`${s.green("✓")} no question waits for an answer`)
  else {
    lines.push(s.bold(`${r.asked.length} question${r.asked.length === 1 ? "" : "s"} this pass (at most ${r.budget}):`))
    r.asked.forEach((q, i) => {
      lines.push(`${i + 1}. ${q.asked} ${s.dim(`[${q.id}]`)}`)
      if (q.blocks !== undefined) lines.push(`   blocks: ${q.blocks}`)
      lines.push(s.dim(`   answer: ${q.answerWith}`))
    })
  }
  if (r.kept.length > 0) lines.push(s.dim(`${r.kept.length} more kept open for the next pass`))
  for (const a of r.answered) lines.push(s.dim(`already answered (${a.answer.ref}): ${a.question.asked} → ${a.answer.answer}`))
  return lines.join("\n")
}

const questionsView: View<QuestionsResult> = { text: questionsText, rows: (r) => r.asked }
const answerView: View<AnswerResult> = {
  text: (r, s) => [`${s.green("✓")} answered ${r.question}`, `  ${r.record.path}`, s.dim("  it will not be asked again")].join("\n")
}

const answerUsage = (message: string) => new UsageError({ message, hint: "akm questions answer <question-id> --answer \"…\" [--route-to FILE] [--by NAME]" })

export const questionsCommand = Command.make(
  "questions",
  {
    action: Args.choice([["answer", "answer"]] as const, { name: "answer" }).pipe(Args.withDescription("`answer` records the answer to one question"), Args.optional),
    id: Args.text({ name: "question-id" }).pipe(Args.withDescription("with answer: the id `akm questions` prints in brackets"), Args.optional),
    answer: Options.text("answer").pipe(Options.withDescription("with answer: the answer"), Options.optional),
    routeTo: Options.text("route-to").pipe(Options.withDescription("with answer: the file the answer was written into"), Options.optional),
    by: Options.text("by").pipe(Options.withDescription("with answer: who answered (default: git user.name)"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("questions this pass (default: interruptBudget in .ai/config.json, 5)"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional),
    ...globalOptions
  },
  (o) => {
    const bundle = Option.getOrUndefined(o.bundle)
    if (Option.isNone(o.action)) {
      const stray = Option.isSome(o.answer) || Option.isSome(o.routeTo) || Option.isSome(o.by) || Option.isSome(o.id)
      return runCommand(o, stray ? Effect.fail(answerUsage("--answer, --route-to, --by and a question id belong to `akm questions answer`")) : questions({ bundle, cwd: callerContext().cwd, limit: Option.getOrUndefined(o.limit) }), questionsView)
    }
    if (Option.isNone(o.id) || Option.isNone(o.answer)) return runCommand(o, Effect.fail(answerUsage("answer needs the question's id and --answer")), answerView)
    return runCommand(o, answerQuestion({ id: o.id.value, answer: o.answer.value, routeTo: Option.getOrUndefined(o.routeTo), by: Option.getOrUndefined(o.by), bundle, cwd: callerContext().cwd }), answerView)
  }
).pipe(Command.withDescription("The questions of this pass, none asked twice; `answer` records one. Example: akm questions answer question/refund-currency --answer \"EUR\""))
