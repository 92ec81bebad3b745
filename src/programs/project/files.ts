import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import type { FileChange } from "../../domain/FileChange.js"
import { Conflict } from "../../domain/Errors.js"
import { sha256Hex, type ChangeClass } from "../../domain/Proposal.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { GitHistory } from "../../services/GitHistory.js"
import type { ProjectTarget } from "../ledger/projectBundle.js"
import { proposeAndApply } from "../proposals/direct.js"

/** The repository's files a scope is matched against: git's index, or (a project set up with --no-git) the walked tree. */
export const projectFileList = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const git = yield* GitHistory
    const tracked = yield* Effect.either(git.trackedFiles(target.root))
    if (tracked._tag === "Right" && path.resolve(tracked.right.root) === path.resolve(target.root)) return { files: tracked.right.files, source: "git" as const }
    const walked = yield* (yield* BundleFiles).walk(target.root, { includeHidden: true })
    return { files: walked.files.map((f) => f.path).filter((p) => !p.startsWith(".git/")).sort(), source: "walk" as const }
  })

/** A file's text, or undefined when it does not exist (read through the bundle's containment checks). */
export const readOptional = (target: ProjectTarget, relative: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const exists = yield* Effect.orElseSucceed(fs.exists(path.join(target.root, relative)), () => false)
    if (!exists) return undefined
    return yield* (yield* BundleFiles).readText(target.root, relative)
  })

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/**
 * Refuses a write to a path that is, or sits under, a symlink leading out of
 * the repository: nothing is ever written outside it.
 */
export const refuseOutside = (target: ProjectTarget, relative: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const root = yield* Effect.orElseSucceed(fs.realPath(target.root), () => target.root)
    let at = path.join(target.root, relative)
    // The deepest part of the path that exists decides where the write lands.
    for (;;) {
      const there = yield* Effect.orElseSucceed(Effect.map(fs.readLink(at), () => true), () => false)
      const exists = there || (yield* Effect.orElseSucceed(fs.exists(at), () => false))
      if (exists) break
      const up = path.dirname(at)
      if (up === at) break
      at = up
    }
    const real = yield* Effect.either(fs.realPath(at))
    if (real._tag === "Left") {
      return yield* new Conflict({ message: `${relative} is a symlink to a path that does not exist`, hint: `remove the link (${relative}) and run the command again; akm writes only inside the repository` })
    }
    if (!inside(root, real.right)) {
      return yield* new Conflict({ message: `${relative} is a symlink that leads out of the repository (to ${real.right})`, hint: `replace the link with a regular file; akm writes only inside the repository` })
    }
  })

/** The current hash of a file (a change's before-hash; null when absent). */
export const hashOf = (target: ProjectTarget, relative: string, present: boolean) =>
  present ? Effect.map(Effect.flatMap(BundleFiles, (files) => files.hash(target.root, [relative])), (h) => h.hash as string | null) : Effect.succeed(null as string | null)

/** One proposal for a set of project files, accepted at once when the policy lists its class. */
export const proposeProject = (target: ProjectTarget, input: { readonly title: string; readonly recipe: string; readonly changeClass: ChangeClass; readonly changes: ReadonlyArray<FileChange> }) =>
  proposeAndApply({
    title: input.title,
    recipe: input.recipe,
    changeClass: input.changeClass,
    changes: input.changes,
    evidence: [{ kind: "user", id: input.recipe, hash: sha256Hex(input.changes.map((c) => `${c.path}\n${typeof c.after === "string" ? c.after : ""}`)) }],
    bundle: target.name,
    root: target.root
  })
