import { Effect } from "effect"
import { UsageError } from "../domain/Errors.js"
import { MAX_LIMIT } from "../domain/Search.js"

/**
 * `--limit` of any command: 1 to MAX_LIMIT, or a usage error naming the range
 * (spec 04 §3). No @effect/cli import, so the search fast path can use it too.
 */
export const checkLimitRange = (limit: number | undefined): Effect.Effect<void, UsageError> =>
  limit === undefined || (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT)
    ? Effect.void
    : Effect.fail(new UsageError({ message: `--limit must be between 1 and ${MAX_LIMIT}, not ${limit}`, hint: "e.g. --limit 10" }))
