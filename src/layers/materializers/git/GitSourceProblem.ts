/**
 * A failure the git materializer already put into words: what went wrong
 * and what the user can do. MaterializerGit turns it into MaterializeFailed;
 * anything else that escapes is a library error and gets generic wording.
 */
export class GitSourceProblem extends Error {
  constructor(readonly reason: string, readonly hint: string) {
    super(reason)
  }
}

/** Refs are joined onto a git directory path by the library: never let a user's --ref climb out of it. */
export const checkRefName = (ref: string): void => {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a ref may not hold
  if (ref === "" || ref.includes("..") || ref.includes("\\") || ref.startsWith("/") || ref.startsWith("-") || /[\u0000-\u0020\u007f~^:?*[]/.test(ref)) {
    throw new GitSourceProblem(`'${ref}' is not a valid git ref name`, "give a branch, a tag or a commit sha, e.g. --ref main")
  }
}

/** "ref 'x' not found", naming a few of the branches and tags that do exist. */
export const refNotFound = (ref: string, branches: ReadonlyArray<string>, tags: ReadonlyArray<string>): GitSourceProblem => {
  const sample = (label: string, names: ReadonlyArray<string>) =>
    names.length === 0 ? [] : [`${label}: ${names.slice(0, 8).join(", ")}${names.length > 8 ? ` and ${names.length - 8} more` : ""}`]
  const known = [...sample("branches", branches), ...sample("tags", tags)]
  return new GitSourceProblem(
    `ref '${ref}' not found${known.length === 0 ? " (the repository has no branches)" : ` — ${known.join("; ")}`}`,
    "give an existing branch, tag or commit sha with --ref (or fix `ref:` in config.yaml)"
  )
}
