/**
 * The small closed word lists the claim extractor reads (spec 06 §8.4): stop
 * words, negations, qualifiers, units and calendar names. Written for this
 * extractor; deliberately short — a word missing here is treated as content,
 * which errs towards "not covered".
 */

/** Function words that carry no claim of their own. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if so as of to in on at by for from with into onto over via per than then that this these those " +
    "there here it its it's they them their theirs we us our ours you your yours he him his she her hers i me my mine " +
    "is are was were be been being am do does did doing done has have had having get gets got will would shall " +
    "can also too just still very really quite which who whom whose what when where while how why " +
    "some any all each both either such same other another own more most much many few " +
    "instead well even again further once down out off now"
  ).split(" ")
)

/** Words that negate what follows; each maps to its canonical kind. */
export const NEGATIONS: ReadonlyMap<string, string> = new Map([
  ["not", "not"],
  ["no", "not"],
  ["never", "not"],
  ["none", "not"],
  ["nothing", "not"],
  ["nobody", "not"],
  ["neither", "not"],
  ["nor", "not"],
  ["cannot", "not"],
  ["without", "without"]
])

/**
 * Words whose meaning is "not X": the claim gets a negation and the content
 * word X, so "disabled" and "enabled" differ in polarity, not just in a word.
 */
export const NEGATED_WORDS: ReadonlyMap<string, string> = new Map([
  ["disabled", "enabled"],
  ["disable", "enable"],
  ["disables", "enables"],
  ["disallowed", "allowed"],
  ["disallow", "allow"],
  ["unsupported", "supported"],
  ["unavailable", "available"],
  ["dislikes", "likes"],
  ["dislike", "like"],
  ["unlimited", "limited"],
  ["inactive", "active"]
])

/** Multi-word qualifiers, longest first; the value is the canonical kind. */
export const QUALIFIER_PHRASES: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [["no", "more", "than"], "atmost"],
  [["no", "less", "than"], "atleast"],
  [["no", "fewer", "than"], "atleast"],
  [["no", "later", "than"], "atmost"],
  [["no", "longer"], "nolonger"],
  [["used", "to"], "formerly"],
  [["at", "most"], "atmost"],
  [["at", "least"], "atleast"],
  [["up", "to"], "atmost"],
  [["or", "later"], "atleast"],
  [["or", "more"], "atleast"],
  [["or", "newer"], "atleast"],
  [["or", "less"], "atmost"],
  [["or", "fewer"], "atmost"],
  [["more", "than"], "above"],
  [["greater", "than"], "above"],
  [["larger", "than"], "above"],
  [["longer", "than"], "above"],
  [["higher", "than"], "above"],
  [["less", "than"], "below"],
  [["fewer", "than"], "below"],
  [["lower", "than"], "below"],
  [["smaller", "than"], "below"],
  [["shorter", "than"], "below"]
]

/** Single-word qualifiers that always count. */
export const QUALIFIERS: ReadonlyMap<string, string> = new Map([
  ["usually", "usually"],
  ["typically", "usually"],
  ["normally", "usually"],
  ["generally", "usually"],
  ["mostly", "usually"],
  ["often", "often"],
  ["frequently", "often"],
  ["sometimes", "sometimes"],
  ["occasionally", "sometimes"],
  ["rarely", "rarely"],
  ["seldom", "rarely"],
  ["always", "always"],
  ["only", "only"],
  ["solely", "only"],
  ["exclusively", "only"],
  ["except", "except"],
  ["unless", "unless"],
  ["about", "about"],
  ["approximately", "about"],
  ["approx", "about"],
  ["roughly", "about"],
  ["circa", "about"],
  ["nearly", "about"],
  ["almost", "about"],
  ["exactly", "exactly"],
  ["formerly", "formerly"],
  ["previously", "formerly"],
  ["anymore", "nolonger"],
  ["maximum", "atmost"],
  ["max", "atmost"],
  ["minimum", "atleast"],
  ["exceeds", "above"],
  ["exceed", "above"],
  ["exceeding", "above"],
  ["first", "first"],
  ["last", "last"],
  ["may", "maybe"],
  ["might", "maybe"],
  ["could", "maybe"],
  ["probably", "maybe"],
  ["possibly", "maybe"],
  ["perhaps", "maybe"],
  ["likely", "maybe"]
])

/** Single-word qualifiers that count only before a number ("under 5 s", not "under review"). */
export const NUMERIC_QUALIFIERS: ReadonlyMap<string, string> = new Map([
  ["under", "below"],
  ["below", "below"],
  ["within", "within"],
  ["over", "above"],
  ["above", "above"],
  ["around", "about"]
])

/** Unit spellings → canonical unit. */
export const UNITS: ReadonlyMap<string, string> = new Map(
  (
    [
      [["ms", "msec", "millisecond", "milliseconds"], "ms"],
      [["us", "µs", "microsecond", "microseconds"], "us"],
      [["ns", "nanosecond", "nanoseconds"], "ns"],
      [["s", "sec", "secs", "second", "seconds"], "s"],
      [["m", "min", "mins", "minute", "minutes"], "min"],
      [["h", "hr", "hrs", "hour", "hours"], "h"],
      [["d", "day", "days"], "day"],
      [["w", "wk", "week", "weeks"], "week"],
      [["mo", "month", "months"], "month"],
      [["y", "yr", "year", "years"], "year"],
      [["b", "byte", "bytes"], "B"],
      [["kb", "kilobyte", "kilobytes"], "KB"],
      [["mb", "megabyte", "megabytes"], "MB"],
      [["gb", "gigabyte", "gigabytes"], "GB"],
      [["tb", "terabyte", "terabytes"], "TB"],
      [["kib"], "KiB"],
      [["mib"], "MiB"],
      [["gib"], "GiB"],
      [["tib"], "TiB"],
      [["%", "percent", "pct"], "%"],
      [["x"], "x"],
      [["k"], "k"],
      [["hz", "khz", "mhz", "ghz"], "hz"],
      [["px", "pixel", "pixels"], "px"],
      [["rps", "qps"], "req/s"],
      [["char", "chars", "character", "characters"], "char"],
      [["word", "words"], "word"],
      [["line", "lines"], "line"],
      [["token", "tokens"], "token"],
      [["row", "rows"], "row"],
      [["item", "items"], "item"],
      [["time", "times"], "x"]
    ] as const
  ).flatMap(([spellings, unit]) => spellings.map((spelling) => [spelling, unit] as const))
)

/** Words that scale the number before them. */
export const MULTIPLIERS: ReadonlyMap<string, number> = new Map([
  ["thousand", 1e3],
  ["million", 1e6],
  ["billion", 1e9]
])

/** Number words read as digits, so "one deploy" and "1 deploy" are the same claim. */
export const NUMBER_WORDS: ReadonlyMap<string, string> = new Map(
  ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"].map(
    (word, value) => [word, String(value)] as const
  )
)

export const MONTHS: ReadonlyArray<string> = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december"
]

/** Day names are names: "later than Tuesday" and "later than Wednesday" differ. */
export const WEEKDAYS: ReadonlySet<string> = new Set(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])

/** Abbreviations whose full stop does not end a sentence. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(["e.g", "i.e", "etc", "vs", "approx", "ca", "cf", "mr", "mrs", "dr", "fig", "incl", "resp"])

/** Irregular verb forms → base form, which the Porter stemmer cannot relate. */
export const IRREGULAR_VERBS: ReadonlyMap<string, string> = new Map(
  (
    [
      ["take", "took taken"],
      ["go", "goes went gone"],
      ["run", "ran"],
      ["break", "broke broken"],
      ["write", "wrote written"],
      ["give", "gave given"],
      ["get", "got gotten"],
      ["make", "made"],
      ["find", "found"],
      ["keep", "kept"],
      ["send", "sent"],
      ["build", "built"],
      ["begin", "began begun"],
      ["choose", "chose chosen"],
      ["drive", "drove driven"],
      ["hold", "held"],
      ["lose", "lost"],
      ["leave", "left"],
      ["set", "sets"],
      ["see", "saw seen"],
      ["show", "shown"],
      ["grow", "grew grown"],
      ["know", "knew known"],
      ["hit", "hits"],
      ["feed", "fed"],
      ["read", "reads"],
      ["spend", "spent"],
      ["shut", "shuts"],
      ["throw", "threw thrown"],
      ["fall", "fell fallen"]
    ] as const
  ).flatMap(([base, forms]) => forms.split(" ").map((form) => [form, base] as const))
)

/** How often something happens: as exact as a number ("refreshed weekly" is not "refreshed daily"). */
export const FREQUENCIES: ReadonlySet<string> = new Set([
  "hourly",
  "daily",
  "nightly",
  "weekly",
  "biweekly",
  "fortnightly",
  "monthly",
  "quarterly",
  "yearly",
  "annually",
  "once",
  "twice",
  "thrice"
])

/**
 * Words whose opposite is one word away: swapping one for the other keeps
 * most of a claim's words and reverses it, so each is required where it
 * appears ("tests pass on Linux" is not "tests fail on Linux").
 */
export const POLAR_WORDS: ReadonlySet<string> = new Set(
  [
    "pass fail",
    "passes fails",
    "passed failed",
    "success failure",
    "succeeds fails",
    "allow deny",
    "allowed denied",
    "accept reject",
    "accepted rejected",
    "before after",
    "faster slower",
    "fast slow",
    "higher lower",
    "increase decrease",
    "increased decreased",
    "more less",
    "larger smaller",
    "bigger smaller",
    "longer shorter",
    "earlier later",
    "older newer",
    "oldest newest",
    "first last",
    "minimum maximum",
    "open closed",
    "public private",
    "internal external",
    "sync async",
    "synchronous asynchronous",
    "true false",
    "yes no",
    "on off",
    "start stop",
    "read write",
    "readonly writable",
    "encrypted unencrypted",
    "secure insecure",
    "safe unsafe",
    "valid invalid",
    "required optional",
    "mandatory optional",
    "include exclude",
    "included excluded",
    "add remove",
    "added removed",
    "upper lower",
    "left right",
    "inbound outbound",
    "ingress egress",
    "upload download",
    "import export",
    "up down",
    "cold warm",
    "hot cold",
    "debug release",
    "prod staging",
    "production staging",
    "primary replica",
    "master replica",
    "leader follower"
  ].flatMap((pair) => pair.split(" "))
)
