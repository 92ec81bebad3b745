/**
 * Environment keys that change how a child process loads code, finds programs
 * or runs hooks (spec 07 §4, R-RT-8). `env run` refuses them for bundles from
 * git/npm/website sources; lint reports them everywhere (the adapters and
 * the runtime programs share this one list).
 */
const EXACT = new Set([
  "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS1", "PS2", "IFS", "ZDOTDIR",
  "NODE_OPTIONS", "NODE_PATH", "NODE_TLS_REJECT_UNAUTHORIZED",
  "PYTHONSTARTUP", "PYTHONPATH", "PYTHONINSPECT", "PYTHONHOME",
  "RUBYLIB", "RUBYOPT", "PERL5LIB", "PERL5OPT",
  "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS",
  "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR",
  "EDITOR", "VISUAL", "PAGER"
])

const PREFIXES = ["LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG_"]

/** Compared upper-cased: Windows environments are case-insensitive, so `path` is PATH there. */
export const isDangerousEnvKey = (name: string): boolean => {
  const key = name.toUpperCase()
  return EXACT.has(key) || PREFIXES.some((prefix) => key.startsWith(prefix))
}
