import { Effect } from "effect"
import * as path from "node:path"
import type { FileMeta } from "../../domain/Adapter.js"
import { NotFound, UsageError } from "../../domain/Errors.js"
import type { RuntimeExport } from "../../domain/RuntimeExport.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { resolveBundle } from "../scan.js"
import { resolveTarget } from "../show.js"

/** An export as the runtime commands use it: where its file is and what kind of source its bundle came from. */
export interface LocatedExport {
  readonly export: RuntimeExport
  readonly bundle: string
  readonly root: string
  /** Bundle-relative path of the definition's file. */
  readonly file: string
  /** filesystem, git, npm or website: R-RT-8 trusts only the operator's own filesystem bundles. */
  readonly source: string
  readonly writable: boolean
}

/**
 * ref → the indexed item → its bundle's adapter → the export of the item's
 * files, with a digest of the bytes as they are now (spec 07 §1). Only the
 * item's own files are read, not the whole bundle.
 */
export const exportOf = Effect.fn("runtime.exportOf")(function* (input: string) {
  const target = yield* resolveTarget(input)
  const { info, adapter } = yield* resolveBundle(target.doc.bundle)
  const config = yield* (yield* WorkspaceConfig).read
  const notExport = new UsageError({
    message: `${target.doc.ref} is a ${target.doc.type ?? "item"}, not something akm can run or inject`,
    hint: "exports are env files, workflows, tasks and scripts; list env items with `akm env list`"
  })
  if (adapter.exports === undefined) return yield* notExport
  const files: ReadonlyArray<FileMeta> = target.doc.files.map((file) => ({ path: path.relative(info.root, file).split(path.sep).join("/"), size: 0, mtimeMs: 0 }))
  const ctx = (yield* BundleFiles).context(info, files)
  const found = (yield* adapter.exports(ctx)).find((e) => e.id === target.doc.conceptId)
  if (found === undefined) {
    if (target.doc.type === "env" || target.doc.type === "script" || target.doc.type === "workflow" || target.doc.type === "task") {
      return yield* new NotFound({ what: "file", name: target.doc.ref, message: `${target.doc.ref}: its file cannot be read`, hint: "run `akm lint` for the reason, then `akm index`" })
    }
    return yield* notExport
  }
  const located: LocatedExport = {
    export: found,
    bundle: info.name,
    root: info.root,
    file: files[0]!.path,
    source: config.bundles[info.name]?.source.kind ?? "filesystem",
    writable: info.writable
  }
  return located
})
