/**
 * Which commits say "something was broken" (spec 08 R-LED-4): the honesty
 * check on self-reports. Judged on the message only:
 * - `revert` — a subject starting with `Revert` (git's own `Revert "…"`, or `revert:`);
 * - `fix` — a conventional `fix:`, `fix(scope):`, `hotfix:` or `bugfix:` subject
 *   (`!` allowed), a subject starting with the word Fix/Fixes/Fixed, a subject
 *   containing bugfix/hotfix, or a message that says `fixes #N` (fix/fixed/fixes).
 * Anything else (feat, docs, "prefix", "fixture") is not a fix.
 */
export type FixKind = "fix" | "revert"

const REVERT = /^revert\b/i
const CONVENTIONAL = /^(?:fix|hotfix|bugfix)(?:\([^)]*\))?!?:/i
const FIX_WORD = /^fix(?:es|ed)?\b(?![-_.])/i
const FIX_NAMED = /\b(?:bug|hot)-?fix(?:es|ed)?\b/i
const ISSUE_FIX = /\bfix(?:es|ed)?\s+(?:[\w.-]+\/[\w.-]+)?#\d+/i

export const subjectOf = (message: string): string => message.split(/\r?\n/)[0]!.trim()

export const classifyCommit = (message: string): FixKind | undefined => {
  const subject = subjectOf(message)
  if (REVERT.test(subject)) return "revert"
  if (CONVENTIONAL.test(subject) || FIX_WORD.test(subject) || FIX_NAMED.test(subject) || ISSUE_FIX.test(message)) return "fix"
  return undefined
}
