import type { EvidenceInput } from "../Evidence.js"
import type { Transcript, TranscriptTool, Turn } from "./Transcript.js"

/**
 * Deterministic extraction from an agent session (spec 06 §1,
 * docs/decisions/0016-evidence.md): the same transcript always gives the same
 * rows, no model involved.
 *   - correction: a user turn, after the agent said or did something, that
 *     opens with "no", "wrong", "actually", "don't"/"do not", "stop", or says
 *     "that's wrong/incorrect/not right", "not what I asked/wanted/meant",
 *     "instead", "you forgot/missed/broke" → `session`;
 *   - question: a user turn of at least three words whose first line ends in
 *     "?" (and is not a correction), answered by the agent's next text turn →
 *     `question`, the question as the query;
 *   - failure: a tool result that reports an error or a non-zero exit →
 *     `failed-run`.
 * Every row of one session shares its independence key (R-IMP-2: ten
 * observations from one session count as one). A row is about an akm ref
 * when its turn — or, failing that, the agent's turns since the last user
 * turn — names one (`akm show <ref>` or `bundle//id`) of a configured bundle.
 */

const CORRECTION_START = /^(?:no|nope|wrong|actually|don'?t|do not|stop)\b/i
const CORRECTION_ANYWHERE = /\b(?:that'?s|that is|this is|it'?s|you'?re) (?:wrong|incorrect|not right|not correct)\b|\bnot what I (?:asked|wanted|meant)\b|\binstead\b|\byou (?:forgot|missed|broke)\b/i

/** Short excerpts keep the row about the observation, not the whole turn. */
const EXCERPT = 400

const excerpt = (text: string, max = EXCERPT): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

export const isCorrection = (text: string): boolean => {
  const t = text.trim()
  return CORRECTION_START.test(t) || CORRECTION_ANYWHERE.test(t)
}

/** The question a user turn asks: its first line when that ends in "?" and has three words or more. */
export const questionOf = (text: string): string | undefined => {
  const first = text.trim().split("\n")[0]!.trim()
  return first.endsWith("?") && first.split(/\s+/).length >= 3 ? first : undefined
}

/** `akm show <ref>` and `bundle//id` mentions, in order, whose bundle is one of `bundles`. */
export const refsIn = (text: string, bundles: ReadonlySet<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const m of text.matchAll(/(?<![\w.:/-])([A-Za-z0-9_-]{1,64})\/\/([A-Za-z0-9_][\w.-]*(?:\/[\w.-]+)*)/g)) {
    const ref = `${m[1]}//${m[2]!.replace(/[.]+$/, "")}`
    if (bundles.has(m[1]!) && !out.includes(ref)) out.push(ref)
  }
  return out
}

export const extractEvidence = (tool: TranscriptTool, transcript: Transcript, bundles: ReadonlySet<string>): ReadonlyArray<EvidenceInput> => {
  const out: Array<EvidenceInput> = []
  const key = `${tool}:${transcript.sessionId}`
  const turns = transcript.turns
  let exchange: Array<Turn> = [] // the agent's turns since the last user turn
  let lastAgentText: string | undefined
  const refFor = (turn: Turn, extra: ReadonlyArray<Turn> = []): string | undefined =>
    [turn, ...extra].flatMap((t) => refsIn(t.text, bundles))[0] ?? [...exchange].reverse().flatMap((t) => refsIn(t.text, bundles))[0]
  const row = (turn: Turn, kind: EvidenceInput["kind"], note: string, ref: string | undefined, query?: string): EvidenceInput => ({
    kind,
    source: tool,
    ...(ref === undefined ? {} : { ref }),
    note,
    ...(query === undefined ? {} : { query }),
    independenceKey: key,
    origin: turn.origin,
    ...(turn.at === undefined ? {} : { observedAt: turn.at })
  })

  turns.forEach((turn, i) => {
    if (turn.role === "user") {
      if (exchange.length > 0 && isCorrection(turn.text)) {
        const after = lastAgentText === undefined ? "" : `; after the agent said: "${excerpt(lastAgentText, 200)}"`
        out.push(row(turn, "session", `correction: "${excerpt(turn.text)}"${after}`, refFor(turn)))
      } else {
        const question = questionOf(turn.text)
        const answer = question === undefined ? undefined : turns.slice(i + 1).find((t) => t.role !== "call" && t.role !== "result")
        if (question !== undefined && answer?.role === "assistant") {
          out.push(row(turn, "question", `question: "${excerpt(question)}"; answered: "${excerpt(answer.text, 300)}"`, refFor(turn, [answer]), question))
        }
      }
      exchange = []
      return
    }
    if (turn.role === "result" && turn.failed === true) {
      out.push(row(turn, "failed-run", `${turn.tool ?? "a tool"} failed: ${excerpt(turn.text) || "(no output)"}`, refFor(turn)))
    }
    if (turn.role === "assistant") lastAgentText = turn.text
    exchange.push(turn)
  })
  return out
}
