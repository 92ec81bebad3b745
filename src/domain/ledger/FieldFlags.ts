import { Either } from "effect"
import { UsageError } from "../Errors.js"
import { parseFieldArgs, type FieldValues } from "../FieldArgs.js"

const LEDGER_KEY = /^[a-z][a-z0-9_]*$/

/**
 * `--field key=value` flags as ledger fields: parsed like any `--field`
 * (FieldArgs.ts), then keys written the ledger's way — `Root-Cause` is
 * `root_cause` — so two spellings of one field make one list.
 */
export const parseFieldFlags = (flags: ReadonlyArray<string>): Either.Either<FieldValues, UsageError> =>
  Either.flatMap(parseFieldArgs(flags), (given) => {
    const out: Record<string, string | Array<string>> = {}
    for (const [written, value] of Object.entries(given)) {
      const key = written.toLowerCase().replace(/-/g, "_")
      if (!LEDGER_KEY.test(key)) {
        return Either.left(new UsageError({ message: `--field ${written}=…: '${written}' is not a ledger field name`, hint: "a ledger field name is letters, digits, - and _ (e.g. root_cause)" }))
      }
      const had = out[key]
      const values = typeof value === "string" ? [value] : [...value]
      out[key] = had === undefined ? (values.length === 1 ? values[0]! : values) : [...(typeof had === "string" ? [had] : had), ...values]
    }
    return Either.right(out)
  })
