import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { resolveLinkPath } from "../core/Links.js"
import { displayName, documentParts, frontmatterDiagnostics, readMarkdown, shortParagraph, type MarkdownDocument } from "../core/MarkdownDocument.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectConceptId, TYPE_OF, type ProjectKind } from "./layout.js"
import { LEDGER_REQUIRED_FIELDS, readLedgerRecord } from "./ledgerRecord.js"
import { checkRuleFrontmatter, ruleList } from "./ruleFrontmatter.js"

/** Body links as concept ids of this bundle (a skill's SKILL.md is the skill's directory). */
const linkIds = (path: string, doc: MarkdownDocument): ReadonlyArray<string> =>
  doc.scan.links.flatMap((link) => {
    const target = resolveLinkPath(path, link.target)
    if (target === undefined) return []
    return [/(^|\/)SKILL\.md$/.test(target) ? target.replace(/\/?SKILL\.md$/, "") : projectConceptId(target)]
  })

const projectLedger = (path: string, doc: MarkdownDocument, book: RuleBook): ProjectResult => {
  const record = readLedgerRecord(path, doc)
  const data = doc.frontmatter.data
  const lead = LEDGER_REQUIRED_FIELDS[record.kind]?.[0]
  const fingerprint = stringField(data, "fingerprint")
  const projection = makeProjection(
    {
      type: record.kind,
      name: record.title ?? nameFromFile(path),
      description: shortParagraph(lead === undefined ? undefined : record.fields.get(lead)?.split("\n\n")[0]),
      tags: stringListField(data, "tags"),
      hints: [`${record.kind}/${record.id}`, ...(fingerprint === undefined ? [] : [fingerprint]), ...["module", "operation", "error_class"].flatMap((f) => record.fields.get(f) ?? [])],
      outline: doc.scan.headings,
      content: doc.scan.text,
      links: linkIds(path, doc)
    },
    { extra: { kind: record.kind, id: record.id, occurrences: record.occurrences, ...(fingerprint === undefined ? {} : { fingerprint }) } }
  )
  return { projection, diagnostics: record.findings.flatMap((finding) => book.report(finding.check, path, finding.message, { line: finding.line })) }
}

const projectRule = (path: string, doc: MarkdownDocument, book: RuleBook): ProjectResult => {
  const data = doc.frontmatter.data ?? {}
  const diagnostics = checkRuleFrontmatter(data, doc.frontmatter.keyLines).flatMap((finding) => book.report("invalid-rule-frontmatter", path, finding.message, { line: finding.line }))
  const mandates = Array.isArray(data["mandates"]) ? data["mandates"].flatMap((m: unknown) => (typeof (m as { subject?: unknown } | null)?.subject === "string" ? [(m as { subject: string }).subject] : [])) : []
  const supersededBy = stringField(data, "superseded_by")
  const ruleId = stringField(data, "id")
  const projection = makeProjection(
    {
      type: "rule",
      name: displayName(doc, path),
      description: stringField(data, "description") ?? shortParagraph(doc.scan.firstParagraph),
      tags: stringListField(data, "tags"),
      hints: [...(ruleId === undefined ? [] : [ruleId]), ...ruleList(data["scope"]), ...mandates],
      outline: doc.scan.headings,
      content: doc.scan.text,
      links: linkIds(path, doc)
    },
    {
      ...(supersededBy === undefined ? {} : { supersededBy }),
      extra: {
        ...(ruleId === undefined ? {} : { ruleId }),
        scope: ruleList(data["scope"]),
        supersedes: ruleList(data["supersedes"]),
        caused: ruleList(data["caused"]),
        ...(stringField(data, "introduced_by") === undefined ? {} : { introducedBy: stringField(data, "introduced_by") })
      }
    }
  )
  return { projection, diagnostics }
}

const projectDocument = (path: string, kind: Exclude<ProjectKind, "ledger" | "rule">, doc: MarkdownDocument): ProjectResult => {
  const data = doc.frontmatter.data
  return {
    projection: makeProjection({
      ...documentParts(doc, path),
      type: TYPE_OF[kind],
      description: stringField(data, "description") ?? shortParagraph(doc.scan.firstParagraph),
      links: linkIds(path, doc)
    }),
    diagnostics: []
  }
}

/** A knowledge file of the project (skills are projected by the SKILL.md codec). */
export const projectKnowledgeFile = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.map(ctx.readText(item.files[0]!), (text) => {
    const path = item.files[0]!
    const kind = item.kind as ProjectKind
    const doc = readMarkdown(text)
    const result = kind === "ledger" ? projectLedger(path, doc, book) : kind === "rule" ? projectRule(path, doc, book) : projectDocument(path, kind, doc)
    return { projection: result.projection, diagnostics: [...frontmatterDiagnostics(path, doc.frontmatter, book), ...result.diagnostics] }
  })
