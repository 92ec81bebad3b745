import { Effect } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { parseExpires, type MemoryFacet, type MemoryProblem, type MemoryRecord } from "../../../domain/memory/MemoryRecord.js"
import { sha256Hex } from "../../../domain/Proposal.js"
import { parseFrontmatter } from "./Frontmatter.js"

/**
 * The memory facet of the markdown formats (akm `memories/`, OKF `memories/`,
 * project `memory/`): one markdown file per memory, metadata in frontmatter
 * (`expires`, `supersedes`, `supersededBy`, `observedAt`, `beliefState`,
 * `derivedFrom`, `scope`). Reading goes through the adapter context only.
 */

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : value instanceof Date ? value.toISOString() : undefined)

const texts = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.flatMap((v) => text(v) ?? []) : text(value) === undefined ? [] : [text(value)!])

const scopeOf = (value: unknown): Readonly<Record<string, string>> | undefined => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined
  const entries = Object.entries(value).flatMap(([k, v]) => (typeof v === "string" || typeof v === "number" ? [[k, String(v)] as const] : []))
  return entries.length === 0 ? undefined : Object.fromEntries(entries)
}

export const markdownMemoryFacet = (dir: string): MemoryFacet => {
  const prefix = `${dir}/`
  /** A ref as written in frontmatter, fully qualified: `x` → `bundle//memories/x`, `memory/x` → `bundle//memories/x`. */
  const qualify = (bundle: string, ref: string): string => {
    if (ref.includes("//")) return ref.replace(/\.md$/, "")
    const bare = ref.replace(/\.md$/, "").replace(/^\.\//, "")
    const inDir = bare.startsWith(prefix) ? bare : bare.startsWith("memory/") || bare.startsWith("memories/") ? `${prefix}${bare.slice(bare.indexOf("/") + 1)}` : bare.includes("/") ? bare : `${prefix}${bare}`
    return `${bundle}//${inDir}`
  }
  const record = (ctx: ValidateContext, path: string, mtimeMs: number, content: string): MemoryRecord => {
    const bundle = ctx.bundle.name
    const fm = parseFrontmatter(content)
    const problems: Array<MemoryProblem> = []
    if (fm.error !== undefined) {
      problems.push({ code: "broken-frontmatter", line: fm.error.line, message: `${path}:${fm.error.line}: the frontmatter cannot be read (${fm.error.message}); fix the YAML between the --- lines` })
    }
    const data = fm.data ?? {}
    let expires: string | undefined
    if (data.expires !== undefined && data.expires !== null) {
      // The file's own time is the base of a duration written in frontmatter.
      const parsed = parseExpires(data.expires, mtimeMs)
      if ("at" in parsed) expires = parsed.at
      else problems.push({ code: "unknown-expires", line: fm.keyLines.expires, message: `${path}:${fm.keyLines.expires ?? 1}: expires ${parsed.reason}; the memory is kept until it is fixed` })
    }
    const observed = text(data.observedAt) ?? text(data.created) ?? text(data.date)
    const supersededBy = text(data.supersededBy)
    const derivedFrom = text(data.derivedFrom)
    const beliefState = text(data.beliefState) ?? text(data.belief)
    const scope = scopeOf(data.scope)
    return {
      ref: `${bundle}//${path.replace(/\.md$/, "")}`,
      path,
      hash: sha256Hex(content),
      bytes: Buffer.byteLength(content),
      observedAt: observed !== undefined && !Number.isNaN(Date.parse(observed)) ? new Date(Date.parse(observed)).toISOString() : new Date(mtimeMs).toISOString(),
      ...(expires === undefined ? {} : { expires }),
      ...(supersededBy === undefined ? {} : { supersededBy: qualify(bundle, supersededBy) }),
      ...(texts(data.supersedes).length === 0 ? {} : { supersedes: texts(data.supersedes).map((r) => qualify(bundle, r)) }),
      ...(derivedFrom === undefined ? {} : { derivedFrom: qualify(bundle, derivedFrom) }),
      ...(beliefState === undefined ? {} : { beliefState }),
      ...(scope === undefined ? {} : { scope }),
      body: fm.present && fm.error === undefined ? fm.body : content,
      problems
    }
  }
  return {
    dir,
    list: (ctx) =>
      Effect.forEach(
        ctx.files.filter((f) => f.path.startsWith(prefix) && f.path.endsWith(".md")),
        (file) => Effect.map(Effect.option(ctx.readText(file.path)), (content) => (content._tag === "None" ? [] : [record(ctx, file.path, file.mtimeMs, content.value)]))
      ).pipe(Effect.map((lists) => lists.flat().sort((a, b) => a.path.localeCompare(b.path)))),
    render: (plan) => [
      ...plan.write.map((w): FileChange => ({ bundle: plan.bundle, path: w.path, beforeHash: w.beforeHash, after: w.text })),
      ...plan.retire.map((r): FileChange => ({ bundle: plan.bundle, path: r.path, beforeHash: r.hash, delete: true }))
    ]
  }
}
