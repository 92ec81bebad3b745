import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as path from "node:path"
import { UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex } from "../../domain/Proposal.js"
import { secretKindOfPath } from "../../domain/SecretFiles.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { resolveBundle } from "../scan.js"
import { decodeText, localFile } from "./direct.js"
import { propose } from "./propose.js"
import { refuseSecretSource } from "./secretGuard.js"
import { proposalView } from "./show.js"

export interface ProposalNewInput {
  readonly bundle: string
  /** `path=@local/file`: the bundle-relative path gets the local file's bytes. */
  readonly files: ReadonlyArray<string>
  readonly title: string
  readonly cwd: string
  readonly home: string
}

/** A bundle-relative POSIX path without empty, `.` or `..` segments (the engine checks containment again). */
const bundlePath = (given: string) => {
  const p = given.normalize("NFC")
  const bad = p === "" || p.startsWith("/") || p.includes("\\") || p.includes("\0") || p.split("/").some((s) => s === "" || s === "." || s === "..")
  if (bad) return Effect.fail(new UsageError({ message: `'${given}' is not a bundle-relative path`, hint: "write it like notes/topic.md: relative to the bundle root, / separators, no . or .. segments" }))
  // The engine refuses these too; saying so now spares a proposal that could never apply.
  const vcs = p.split("/").find((s) => /^\.(git|hg|svn)$/i.test(s))
  return vcs === undefined
    ? Effect.succeed(p)
    : Effect.fail(new UsageError({ message: `'${given}' lies in ${vcs}/, which holds version-control metadata`, hint: "akm never writes into .git/, .hg/ or .svn/; use the version-control tool itself" }))
}

const parseFileFlag = (flag: string) => {
  const at = flag.indexOf("=@")
  return at <= 0 || at + 2 === flag.length
    ? Effect.fail(new UsageError({ message: `--file '${flag}' is not path=@local-file`, hint: "e.g. --file guides/setup.md=@./draft.md" }))
    : Effect.succeed({ target: flag.slice(0, at), source: flag.slice(at + 2) })
}

/**
 * `akm proposal new`: a hand-made proposal that writes local files' bytes to
 * paths of one bundle; it waits for review like any other (recipe `manual`).
 */
export const proposalNew = Effect.fn("proposal.new")(function* (input: ProposalNewInput) {
  const fs = yield* FileSystem
  const files = yield* BundleFiles
  if (input.files.length === 0) return yield* new UsageError({ message: "a proposal needs at least one --file", hint: "e.g. akm proposal new --bundle notes --file guides/setup.md=@./draft.md --title \"Setup guide\"" })
  if (input.title.trim() === "") return yield* new UsageError({ message: "a proposal needs a title", hint: "say what it does with --title" })
  const { info, adapter } = yield* resolveBundle(input.bundle)
  const changes: Array<FileChange> = []
  for (const flag of input.files) {
    const { target, source } = yield* parseFileFlag(flag)
    const relative = yield* bundlePath(target)
    const { file, bytes, secretName } = yield* localFile(source, input)
    // A secret-named file may only go to an env/secret path, where propose lets key names through and nothing else.
    if (secretName && secretKindOfPath(relative, adapter.id) === undefined) return yield* refuseSecretSource(file)
    const exists = yield* fs.exists(path.join(info.root, relative)).pipe(Effect.orElseSucceed(() => false))
    const beforeHash = exists ? (yield* files.hash(info.root, [relative])).hash : null
    changes.push({ bundle: input.bundle, path: relative, beforeHash, after: decodeText(bytes) ?? bytes })
  }
  const { proposal } = yield* propose({
    title: input.title.trim(),
    recipe: "manual",
    changeClass: "semantic",
    changes,
    evidence: changes.map((c) => ({ kind: "user", id: c.path, hash: sha256Hex(c.after!) }))
  })
  return yield* proposalView(proposal)
})
