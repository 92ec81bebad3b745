import { Either } from "effect"
import { UsageError } from "./Errors.js"

/** Field values from the command line: a key given once is text, a repeated key a list in the order given. */
export type FieldValues = Readonly<Record<string, string | ReadonlyArray<string>>>

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/

/**
 * `--field key=value` arguments (`akm create`, `akm ledger add`): split at the
 * first `=`, so a value may hold more; repeating a key builds a list field.
 * An argument without `=` or with a bad key is a usage error naming it.
 */
export const parseFieldArgs = (args: ReadonlyArray<string>): Either.Either<FieldValues, UsageError> => {
  const fields: Record<string, string | Array<string>> = {}
  for (const arg of args) {
    const at = arg.indexOf("=")
    if (at === -1) return Either.left(new UsageError({ message: `--field '${arg}' has no '=': a field is given as key=value`, hint: "e.g. --field module=src/db (repeat --field key=… to build a list)" }))
    const key = arg.slice(0, at).trim()
    if (!KEY.test(key)) return Either.left(new UsageError({ message: `--field '${arg}': '${key}' is not a field name`, hint: "field names are letters, digits, _, - and ., starting with a letter or _" }))
    const value = arg.slice(at + 1)
    const existing = fields[key]
    fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return Either.right(fields)
}
