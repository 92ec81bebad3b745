import { Data } from "effect"

/**
 * Why an npm source could not be materialized, in words a user can act on.
 * The npm helpers throw it from their promise code; MaterializerNpm turns it
 * into the service's MaterializeFailed with the bundle name attached.
 */
export class NpmProblem extends Data.TaggedError("NpmProblem")<{
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return this.reason
  }
}
