import { Data } from "effect"

/**
 * Refusals of the runtime commands (spec 07). Each names refs, aliases and
 * key names — never a value — and says what to do. Exit codes: cli/exitCodes.ts.
 */

/** A git/npm/website export run without a binding (R-RT-1, R-RT-2): exit 1. */
export class ExportNotBound extends Data.TaggedError("ExportNotBound")<{
  readonly ref: string
  readonly message: string
  readonly hint: string
}> {}

/** A bound export whose digest changed since it was approved (R-RT-3): exit 1; `diff` shows the definition's change. */
export class ExportChanged extends Data.TaggedError("ExportChanged")<{
  readonly alias: string
  readonly ref: string
  readonly diff: string
  readonly message: string
  readonly hint: string
}> {}

/** Dangerous keys from a bundle of a git/npm/website source (R-RT-8): exit 2, nothing injected. */
export class DangerousEnvRefused extends Data.TaggedError("DangerousEnvRefused")<{
  readonly keys: ReadonlyArray<string>
  readonly message: string
  readonly hint: string
}> {}

/** A required key with no value (declared without one, not mapped): exit 1, naming the key. */
export class EnvKeyMissing extends Data.TaggedError("EnvKeyMissing")<{
  readonly keys: ReadonlyArray<string>
  readonly message: string
  readonly hint: string
}> {}

/** An env file akm cannot use to inject (invalid UTF-8, a duplicate key, an unclosed quote): exit 1, naming file and line. */
export class EnvFileInvalid extends Data.TaggedError("EnvFileInvalid")<{
  readonly path: string
  readonly message: string
  readonly hint: string
}> {}

/** A workflow that cannot run as written (lint errors, no runnable plan): exit 1, naming the file and what `akm lint` shows. */
export class WorkflowInvalid extends Data.TaggedError("WorkflowInvalid")<{
  readonly ref: string
  readonly message: string
  readonly hint: string
}> {}

/** A frozen plan whose hash no longer matches what the run recorded (R-RT-5): exit 1, nothing run. */
export class WorkflowPlanTampered extends Data.TaggedError("WorkflowPlanTampered")<{
  readonly runId: string
  readonly message: string
  readonly hint: string
}> {}
