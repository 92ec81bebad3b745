import { Either } from "effect"
import { UsageError } from "../Errors.js"

/**
 * `--field key=value` flags as fields: the first `=` splits; a key given more
 * than once makes a list (`--field alternatives=A --field alternatives=B`);
 * `root-cause` is `root_cause`. A flag without `=` or with a bad key is a
 * usage error.
 */
export const parseFieldFlags = (flags: ReadonlyArray<string>): Either.Either<Record<string, string | ReadonlyArray<string>>, UsageError> => {
  const out: Record<string, string | Array<string>> = {}
  for (const flag of flags) {
    const at = flag.indexOf("=")
    if (at < 0) return Either.left(new UsageError({ message: `--field '${flag}' has no '='`, hint: "write each field as --field key=value, e.g. --field module=src/db" }))
    const key = flag.slice(0, at).trim().toLowerCase().replace(/-/g, "_")
    if (!/^[a-z][a-z0-9_]*$/.test(key)) return Either.left(new UsageError({ message: `--field '${flag}': '${flag.slice(0, at)}' is not a field name`, hint: "a field name is letters, digits, - and _ (e.g. root_cause)" }))
    const value = flag.slice(at + 1)
    const had = out[key]
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had as string, value]
  }
  return Either.right(out)
}
