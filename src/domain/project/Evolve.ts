import { Document, isMap, isSeq } from "yaml"
import { normaliseModule, slugOf } from "../ledger/Fingerprint.js"
import { mandatesOf } from "./Mandates.js"
import { ruleSections, type RuleFile } from "./RuleFile.js"

/**
 * Rule evolution (spec 08 R-HAR-2): when rule A's enforcement caused failure
 * B, A' is drafted to satisfy both — rendered from a template, so the same A
 * and B always give the same text. The generator refinement (issue "Improve")
 * plugs in after this draft through `EvolutionRefinement`.
 */

/** What the template reads from the failure A caused. */
export interface CausedFailure {
  /** `failure/<id>`. */
  readonly ref: string
  readonly title: string
  readonly symptom?: string | undefined
  readonly rootCause?: string | undefined
  readonly fix?: string | undefined
  readonly module?: string | undefined
}

export interface EvolvedRule {
  readonly id: string
  readonly path: string
  readonly title: string
  readonly scope: ReadonlyArray<string>
  /** The whole file: frontmatter (id, supersedes, introduced_by, scope, mandates) and body. */
  readonly text: string
}

/** The seam for a later generator pass: takes the template's draft, returns the text to propose (same links and scope). */
export type EvolutionRefinement = (draft: EvolvedRule, from: { readonly rule: RuleFile; readonly failures: ReadonlyArray<CausedFailure> }) => EvolvedRule

export const templateOnly: EvolutionRefinement = (draft) => draft

const oneLine = (text: string | undefined, fallback: string): string => (text ?? "").replace(/\s*\n\s*/g, " ").trim() || fallback

const moduleGlob = (module: string): string => {
  const clean = normaliseModule(module)
  return /\.[a-z0-9]+$/.test(clean.replace(/^.*\//, "")) ? clean : `${clean}/**`
}

/** The scope A' carries: A's, else the globs of the failures' modules; never empty (a synthesized rule without scope is refused). */
export const evolvedScope = (rule: RuleFile, failures: ReadonlyArray<CausedFailure>): ReadonlyArray<string> =>
  rule.scope.length > 0 ? rule.scope : [...new Set(failures.flatMap((f) => (f.module === undefined || f.module.trim() === "" ? [] : [moduleGlob(f.module)])))].sort()

/** A slug of at most 40 characters that ends on a whole word. */
const wholeWordSlug = (title: string): string => {
  let out = ""
  for (const word of title.split(/\s+/)) {
    const next = slugOf(`${out} ${word}`.trim())
    if (next.length >= 40 && out !== "") break
    out = next
  }
  return out === "" ? "rule" : out
}

/** Renders A' from A and the failures it caused (deterministic: no clock, inputs in the given order). */
export const renderEvolution = (rule: RuleFile, failures: ReadonlyArray<CausedFailure>, id: string): EvolvedRule | { readonly problem: string } => {
  const scope = evolvedScope(rule, failures)
  if (scope.length === 0) return { problem: `rule ${rule.id} has no scope and the failures it caused name no module: a synthesized rule needs a non-empty scope` }
  const purpose = ruleSections(rule.body).find((s) => /^purpose$/i.test(s.heading))?.text ?? oneLine(rule.body.replace(/^#.*$/m, "").split("\n\n").find((p) => p.trim() !== ""), rule.title)
  const mandates = mandatesOf(rule)
  const structured = rule.mandates ?? []
  const title = `${rule.title.replace(/ \(revised\)$/, "")} (revised)`
  const slug = `${wholeWordSlug(rule.title.replace(/ \(revised\)$/, ""))}-revised`
  const path = `rules/${id}-${slug}.md`
  let n = 0
  const numbered = (text: string) => `${++n}. ${text}`
  const body = [
    `# ${title}`,
    "",
    "## Purpose",
    "",
    purpose,
    "",
    `It replaces rule ${rule.id} (${rule.path}), whose enforcement caused ${failures.map((f) => f.ref).join(", ")}. This rule must satisfy both: the constraint rule ${rule.id} protects, and not causing ${failures.length === 1 ? "that failure" : "those failures"} again.`,
    "",
    "## Applies to",
    "",
    scope.map((g) => `\`${g}\``).join(", "),
    "",
    "## Mandatory rules",
    "",
    ...mandates.map((m) => numbered(m.structured ? `${m.must ? "Must" : "Must not"}: ${m.subject}` : m.subject)),
    ...failures.map((f) => numbered(`Without causing ${f.title} again: ${oneLine(f.fix, "find a fix that keeps the constraint above")}`)),
    numbered(`Must satisfy both: where the two pull apart, keep the constraint of rule ${rule.id} and change how it is enforced.`),
    "",
    "## Why this shape",
    "",
    ...failures.flatMap((f) => [
      `- ${f.ref} — ${f.title}`,
      `  - symptom: ${oneLine(f.symptom, "not recorded")}`,
      `  - root cause: ${oneLine(f.rootCause, "not recorded")}`,
      `  - fix: ${oneLine(f.fix, "not recorded")}`
    ]),
    ""
  ].join("\n")
  const front: Record<string, unknown> = {
    id,
    supersedes: [rule.id],
    introduced_by: failures[0]?.ref,
    scope: [...scope],
    ...(structured.length === 0 ? {} : { mandates: structured.map((m) => ({ must: m.must, subject: m.subject })) })
  }
  const doc = new Document(Object.fromEntries(Object.entries(front).filter(([, v]) => v !== undefined)))
  // Lists inline, like the spec's examples (`supersedes: ["04"]`).
  for (const key of ["supersedes", "scope"]) {
    const node = doc.get(key, true)
    if (isSeq(node)) node.flow = true
  }
  const mandateNodes = doc.get("mandates", true)
  if (isSeq(mandateNodes)) for (const item of mandateNodes.items) if (isMap(item)) item.flow = true
  const yaml = doc.toString({ lineWidth: 0, flowCollectionPadding: false, defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" })
  return { id, path, title, scope, text: `---\n${yaml}---\n\n${body}` }
}
