/**
 * The parameters a slash command's body takes: `$ARGUMENTS` (everything after
 * the command) and the positional `$1`, `$2` … (Claude Code and OpenCode
 * alike). A placeholder syntax, not markdown structure, so a pattern is right.
 */
export const commandParameters = (body: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const match of body.matchAll(/\$(ARGUMENTS\b|[1-9][0-9]*)/g)) found.add(`$${match[1]}`)
  return [...found].sort((a, b) => (a === "$ARGUMENTS" ? -1 : b === "$ARGUMENTS" ? 1 : Number(a.slice(1)) - Number(b.slice(1))))
}
