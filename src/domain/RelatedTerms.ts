import { terms } from "./Query.js"
import { VOCABULARY_STEMS } from "./RelatedTermsStems.js"

/**
 * Related developer vocabulary (issue 25, vocabulary gaps;
 * docs/decisions/0051-related-terms.md): words a developer uses for the same
 * thing where the library says it another way ("what should I call the
 * table" ↔ "naming", "delete" ↔ "remove", "sign in" ↔ "login"). Written from
 * general developer English, not from any library or question set: each
 * line is one sense, its words interchangeable in a question. A word with two
 * senses sits on two lines ("call": a name, an invocation).
 *
 * Query-time only and weak (RANKING.relatedTerm): a word of the question the
 * item lacks counts as partly covered when a related word is in the item's
 * own labels (name, description, tags, aliases, hints). It never adds to an
 * item that has the word itself, so a related word always scores below the
 * word asked. Pure.
 */
const SENSES: ReadonlyArray<ReadonlyArray<string>> = [
  // naming and wording
  ["name", "call", "rename", "title"],
  ["word", "wording", "phrase", "phrasing", "write"],
  ["describe", "description", "explain", "explanation", "summary", "summarize"],
  // doing
  ["call", "invoke"],
  ["run", "execute"],
  ["remove", "delete", "erase", "drop", "wipe"],
  ["purge", "flush", "invalidate", "clear"],
  ["create", "add", "generate", "scaffold"],
  ["edit", "modify", "change", "alter", "tweak"],
  ["update", "upgrade", "bump"],
  ["fix", "repair", "resolve", "patch"],
  ["copy", "duplicate", "clone"],
  ["find", "search", "locate", "lookup", "look up"],
  ["show", "display", "view", "print", "list"],
  ["start", "launch", "boot", "spin up"],
  ["stop", "halt", "shut down", "shutdown", "terminate", "kill"],
  ["restart", "reboot", "bounce"],
  ["install", "set up", "setup"],
  ["deploy", "ship", "release", "rollout", "roll out"],
  ["publish", "release"],
  ["undo", "revert", "rollback", "roll back"],
  ["backup", "back up", "snapshot", "dump"],
  ["restore", "recover", "recovery"],
  ["migrate", "migration", "port"],
  ["retry", "retries", "backoff", "back off"],
  ["review", "audit", "inspect"],
  ["schedule", "cron", "recurring", "periodic"],
  ["compress", "shrink", "minify"],
  ["reduce", "lower", "decrease", "cut"],
  ["increase", "raise", "grow"],
  ["speed up", "optimize", "accelerate", "tune"],
  ["rotate", "renew", "refresh"],
  ["expire", "expiry", "expiration", "lapse"],
  ["encrypt", "encryption", "cipher"],
  ["merge", "combine"],
  ["format", "formatter", "prettify"],
  ["lint", "linter"],
  ["notify", "notification", "alert", "alarm"],
  ["monitor", "monitoring", "observability", "watch"],
  // failing
  ["error", "failure", "fail", "failing", "exception"],
  ["crash", "panic", "abort"],
  ["bug", "defect", "issue", "ticket"],
  ["broken", "not working", "failing"],
  ["hang", "freeze", "stuck", "unresponsive"],
  ["slow", "sluggish", "latency", "laggy"],
  ["fast", "quick", "speedy"],
  ["speed", "performance"],
  ["outage", "incident", "downtime"],
  ["flaky", "intermittent", "unreliable", "nondeterministic"],
  ["vulnerability", "cve", "exploit"],
  ["leak", "leaked", "exposed"],
  // things
  ["config", "settings", "configuration", "options", "preferences"],
  ["login", "log in", "sign in", "signin", "logon", "authenticate"],
  ["logout", "log out", "sign out", "signout"],
  ["signup", "sign up", "register", "registration"],
  ["password", "passphrase", "credential"],
  ["secret", "credential"],
  ["token", "api key"],
  ["permission", "privilege", "access", "authorization", "authorize"],
  ["user", "visitor", "customer", "end user"],
  ["teammate", "colleague", "coworker"],
  ["server", "host", "machine", "instance", "box"],
  ["directory", "folder"],
  ["database", "datastore"],
  ["column", "field", "attribute"],
  ["function", "method", "procedure", "routine"],
  ["dependency", "package", "library"],
  ["test", "spec"],
  ["build", "compile"],
  ["ci", "pipeline", "continuous integration"],
  ["pr", "pull request", "merge request"],
  ["commit", "check in"],
  ["terminal", "shell", "console", "command line", "cli"],
  ["shortcut", "hotkey", "keybinding"],
  ["frontend", "front end", "client side"],
  ["backend", "back end", "server side"],
  ["endpoint", "route"],
  ["url", "link"],
  ["website", "site", "web page"],
  ["domain", "hostname"],
  ["vpn", "tunnel"],
  ["disk", "storage", "drive"],
  ["memory", "ram"],
  ["oom", "out of memory"],
  ["image", "picture", "photo"],
  ["big", "large", "huge"],
  ["small", "tiny"],
  ["old", "stale", "outdated", "obsolete", "legacy"],
  ["limit", "quota", "cap"],
  ["throttle", "rate limit", "too many requests"],
  ["cost", "price", "billing", "spend"],
  ["invoice", "bill"],
  ["payment", "charge"],
  ["email", "mail"],
  ["convention", "guideline", "standard", "best practice"],
  ["runbook", "playbook"],
  ["guide", "tutorial", "walkthrough", "how to"],
  ["onboarding", "new hire", "getting started"],
  ["accessibility", "a11y"],
  ["i18n", "internationalization", "localization", "l10n", "translation"],
  ["health check", "healthcheck", "liveness", "readiness", "probe"],
  ["css", "stylesheet", "styles", "styling"],
  // HTTP status codes say what the prose calls them
  ["401", "unauthorized", "unauthenticated"],
  ["403", "forbidden", "permission denied"],
  ["404", "not found"],
  ["429", "too many requests", "rate limit", "throttle"],
  ["500", "internal server error"],
  ["502", "bad gateway"],
  ["503", "service unavailable"],
  ["504", "gateway timeout", "timeout"]
]

/**
 * Narrower → broader: a question naming the part may be answered by text
 * naming the whole ("css" or "images" of a web page are its static assets),
 * not the other way round.
 */
const BROADER: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["css", ["assets", "static files"]],
  ["javascript", ["assets", "static files"]],
  ["fonts", ["assets", "static files"]],
  ["stylesheet", ["assets", "static files"]]
]

/** Every word and term of the vocabulary, once each, in the order written (test/domain/RelatedTermsStems.test.ts). */
export const vocabularyWords = (): ReadonlyArray<string> => [...new Set([...SENSES.flat(), ...BROADER.flatMap(([narrow, broad]) => [narrow, ...broad])])]

/**
 * Each word's stems, computed once (the pairs below name every word many
 * times): read from VOCABULARY_STEMS, the stemmer's own answers written out,
 * so a command's start runs no stemmer over the vocabulary (0.2–2 ms of CPU
 * per search or curate in a fresh process, docs/decisions/0060-read-path-margins.md);
 * a word missing from it is stemmed here (and the test fails on any entry
 * that differs from the stemmer).
 */
const stemsOf = new Map<string, ReadonlyArray<string>>()
const termsOf = (word: string): ReadonlyArray<string> => {
  let known = stemsOf.get(word)
  if (known === undefined) {
    const written = Object.hasOwn(VOCABULARY_STEMS, word) ? VOCABULARY_STEMS[word] : undefined
    stemsOf.set(word, (known = written === undefined ? terms(word) : written === "" ? [] : written.split(" ")))
  }
  return known
}

/**
 * Stem sequences related to a word's stem, built per two-letter prefix on
 * first use: stemming the whole vocabulary cost every search and curate
 * 8–12 ms of CPU at start (docs/decisions/0055-read-command-startup.md), and a
 * question needs the entries of a few prefixes. The stemmer only rewrites
 * endings, so a word's stem starts as the word does
 * (test/domain/RelatedTermsLazy.test.ts checks every entry lands under the
 * prefix it is looked up by).
 */
const byPrefix = new Map<string, ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>>()

/** The entries whose word starts with `prefix` (every entry when undefined), in the vocabulary's order. */
export const buildRelated = (prefix?: string): ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>> => {
  const map = new Map<string, Array<ReadonlyArray<string>>>()
  const add = (from: string, to: ReadonlyArray<string>) => {
    const own = termsOf(from)
    // Only a one-word entry is looked up: a question's words are read one by one.
    if (own.length !== 1) return
    const key = own[0]!
    if (to.length === 1 && to[0] === key) return
    const list = map.get(key) ?? []
    if (!list.some((l) => l.length === to.length && l.every((s, i) => s === to[i]))) list.push(to)
    map.set(key, list)
  }
  const wanted = (from: string) => prefix === undefined || from.slice(0, 2) === prefix
  for (const sense of SENSES) for (const from of sense) if (wanted(from)) for (const to of sense) if (from !== to) add(from, termsOf(to))
  for (const [narrow, broad] of BROADER) if (wanted(narrow)) for (const to of broad) add(narrow, termsOf(to))
  return map
}

/** The stem sequences related to one word's stem (each a word or a multi-word term); none for most words. */
export const relatedStems = (stem: string): ReadonlyArray<ReadonlyArray<string>> => {
  const prefix = stem.slice(0, 2)
  if (prefix === "") return []
  let entries = byPrefix.get(prefix)
  if (entries === undefined) byPrefix.set(prefix, (entries = buildRelated(prefix)))
  return entries.get(stem) ?? []
}
