import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { Crontab, CrontabChanged } from "../../services/Crontab.js"
import { atomicWriteFileSync } from "../fs/atomicWrite.js"

const readText = (file: string): string => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return ""
    throw error
  }
}

const unavailable = (file: string) => (error: unknown) =>
  new WorkspaceUnavailable({ path: file, reason: `cannot read or write the crontab file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, hint: "check runtime.crontabFile in config.yaml and the file's permissions" })

/**
 * The crontab as a plain file (`runtime.crontabFile`): created when missing;
 * written through a temp file and a rename, keeping the file's mode, after
 * checking nobody changed it since it was read.
 */
export const crontabFile = (file: string): Crontab["Type"] =>
  Crontab.of({
    where: Effect.succeed(`the crontab file ${file}`),
    read: Effect.try({ try: () => readText(file), catch: unavailable(file) }),
    replace: (expected, next) =>
      Effect.try({
        try: () => {
          // A symlinked file is edited where it points, not replaced by a plain file.
          const target = fs.existsSync(file) ? fs.realpathSync(file) : file
          if (readText(target) !== expected) return false
          const mode = fs.existsSync(target) ? fs.statSync(target).mode & 0o777 : 0o644
          atomicWriteFileSync(target, next, mode)
          return true
        },
        catch: unavailable(file)
      }).pipe(Effect.flatMap((written) => (written ? Effect.void : Effect.fail(new CrontabChanged()))))
  })

export const CrontabFile = (file: string) => Layer.succeed(Crontab, crontabFile(file))
