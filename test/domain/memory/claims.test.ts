import { describe, expect, it } from "vitest"
import { claimCoverage, extractClaims, fullyCovered } from "../../../src/domain/memory/Claims.js"

// The claim extractor and coverage checker (spec 06 §8.4, R-MEM-3/4): what a
// claim is, which anchors it carries, and for each anchor kind a pair where
// the check fires (not covered) and one where it stays silent (covered).

const verdict = (source: string, target: string | ReadonlyArray<string>) => {
  const coverage = claimCoverage(source, typeof target === "string" ? [target] : target)
  const uncovered = coverage.find((claim) => !claim.covered)
  return { covered: uncovered === undefined, loss: uncovered?.loss?.kind, reason: uncovered?.reason ?? "" }
}

describe("extractClaims", () => {
  it("splits sentences, ; clauses, bullets, numbered items and table rows; headings make no claim", () => {
    const claims = extractClaims(
      [
        "# Deploy notes",
        "",
        "The build takes 12 minutes. Do not retry it; open an issue.",
        "",
        "- first bullet",
        "* second bullet",
        "1. numbered item",
        "",
        "| host | role |",
        "| --- | --- |",
        "| db-01 | primary |"
      ].join("\n")
    )
    expect(claims.map((claim) => claim.text)).toEqual([
      "The build takes 12 minutes.",
      "Do not retry it",
      "open an issue.",
      "first bullet",
      "second bullet",
      "numbered item",
      "db-01: primary"
    ])
    expect(claims.map((claim) => claim.index)).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it("keeps code spans whole (a full stop inside one ends nothing) and strips emphasis", () => {
    const claims = extractClaims("Run `make dev. seed` first. It is **not** optional.")
    expect(claims.map((claim) => claim.text)).toEqual(["Run `make dev. seed` first.", "It is not optional."])
    expect(claims[0]!.anchors!.entities).toContain("make dev. seed")
  })

  it("does not end a sentence at a decimal point, a host name or an abbreviation", () => {
    const claims = extractClaims("Python 3.11 runs on build.example.com, e.g. for the nightly jobs. It uses 1.5 GB.")
    expect(claims).toHaveLength(2)
  })

  it("joins a paragraph's lines and a bullet's indented continuation", () => {
    const claims = extractClaims("The cache is\nshared by both.\n\n- one bullet\n  continued here")
    expect(claims.map((claim) => claim.text)).toEqual(["The cache is shared by both.", "one bullet continued here"])
  })

  it("reads anchors: numbers with units, ISO dates, negations and qualifiers with what they bear on, names", () => {
    const [claim] = extractClaims("Since March 2, 2026 the CI pipeline on GitHub Actions usually takes 12 minutes and never 1.5 GB.")
    expect(claim!.anchors).toEqual({
      numbers: ["12 min", "1.5 GB"],
      dates: ["2026-03-02"],
      negations: ["not 1.5"],
      qualifiers: ["usually take"],
      entities: ["ci", "github", "actions"]
    })
    expect(claim!.words).toEqual(expect.arrayContaining(["sinc", "pipelin", "take"]))
  })

  it("reads an empty body as no claims", () => {
    expect(extractClaims("")).toEqual([])
    expect(extractClaims("## Only a heading\n\n---\n")).toEqual([])
  })
})

describe("coverage: identical and reworded text", () => {
  it("covers a source by itself and by the same claims in another order or form", () => {
    const source = "- Production runs PostgreSQL 15.4 on db-main-01.\n- Never run ALTER TABLE during business hours."
    expect(fullyCovered(source, [source])).toBe(true)
    expect(verdict(source, "Never run ALTER TABLE during business hours. Production runs PostgreSQL 15.4 on `db-main-01`.").covered).toBe(true)
  })

  it("covers a claim by two adjacent target claims, and by claims spread over two targets", () => {
    expect(verdict("The cache lives in /var/cache/akm and is not shared between users.", "- The cache lives in /var/cache/akm\n- It is not shared between users").covered).toBe(true)
    expect(verdict("The API is public. The admin API is not.", ["The API is public.", "The admin API is not."]).covered).toBe(true)
  })

  it("is not fooled by a merged note that is similar but omits a claim (seed 13.37)", () => {
    const result = verdict("The cache is 2 GB. It is flushed on every deploy.", "The cache is 2 GB and fast.")
    expect(result).toMatchObject({ covered: false, loss: "words" })
  })

  it("says which target covers each claim", () => {
    const coverage = claimCoverage("Alpha uses Redis. Beta uses Kafka.", ["Beta uses Kafka.", "Alpha uses Redis."])
    expect(coverage.map((claim) => claim.coveredBy)).toEqual([1, 0])
    expect(coverage.every((claim) => claim.reason !== "")).toBe(true)
  })

  it("treats no targets as covering nothing", () => {
    expect(claimCoverage("The cache is 2 GB.", [])).toEqual([expect.objectContaining({ covered: false, reason: "no target makes any claim" })])
  })
})

describe("coverage: adversarial targets", () => {
  it("does not borrow an anchor from an unrelated neighbouring claim", () => {
    expect(verdict("The limit is 100.", "The limit is 50. We tried 100 once.").covered).toBe(false)
    expect(verdict("The build is slow on Windows.", "The build is slow. Windows is fine.").covered).toBe(false)
  })

  it("does not read a value from a neighbouring claim that swaps it with another", () => {
    expect(verdict("Staging uses 3 replicas; production uses 5.", "Staging uses 5 replicas; production uses 3.").covered).toBe(false)
  })

  it("keeps every word of a short claim (threshold 0.8)", () => {
    expect(verdict("CI runs on every push to main.", "CI runs on every push.")).toMatchObject({ covered: false, loss: "words" })
  })

  it("does not read two values in the same unit as one", () => {
    const result = verdict("The limit is 100 requests per second.", "The limit is 50 requests per second. Bursts reach 100 requests per second.")
    expect(result.covered).toBe(false)
  })

  it("catches a negation aimed at a name, and a claim the target puts in the past", () => {
    expect(verdict("Alice approved the PR.", "Bob approved the PR, not Alice.")).toMatchObject({ covered: false, loss: "negation" })
    expect(verdict("The job runs daily.", "The job used to run daily but was stopped.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("The cache is enabled in production.", "The cache is enabled in staging, not in production.").covered).toBe(false)
  })

  it("reads a fragment of bare anchors, or a lead-in line, together with the claim next to it", () => {
    expect(verdict("There is a deploy freeze from 2026-12-18 to 2027-01-05.", "Deploy freeze:\n- from 2026-12-18 to 2027-01-05").covered).toBe(true)
    expect(verdict("On 2026-02-14 the API was down for 37 minutes.", "Incident 2026-02-14:\n- the API was down for 37 minutes").covered).toBe(true)
  })

  it("requires a word whose opposite is one word away, and the same frequency", () => {
    expect(verdict("Integration tests pass on the Linux runners today.", "Integration tests fail on the Linux runners today.")).toMatchObject({ covered: false, loss: "words" })
    expect(verdict("The staging database is refreshed from production snapshots weekly.", "The staging database is refreshed from production snapshots daily.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("Reads go to the primary database in the eu region.", "Reads go to the replica database in the eu region.").covered).toBe(false)
  })
})

describe("coverage: numbers", () => {
  it("fires when a number changes or goes", () => {
    expect(verdict("The vacuum takes 40 minutes.", "The vacuum takes 45 minutes.")).toMatchObject({ covered: false, loss: "number" })
    expect(verdict("Keep batches at most 5000 items.", "Keep batches small, at most a few items.")).toMatchObject({ covered: false })
    expect(verdict("Pandas is pinned to 2.1.4.", "Pandas is pinned to 2.1.3.")).toMatchObject({ covered: false, loss: "number" })
    expect(verdict("Python 3.10 is required.", "Python 3.1 is required.")).toMatchObject({ covered: false, loss: "number" })
    expect(verdict("Planning starts at 10:00.", "Planning starts at 11:00.")).toMatchObject({ covered: false, loss: "number" })
  })

  it("stays silent for thousands separators, number words, glued units and code spans", () => {
    expect(verdict("It holds 20000 connections.", "It holds 20,000 connections.").covered).toBe(true)
    expect(verdict("At most 1 deploy per day.", "At most one deploy per day.").covered).toBe(true)
    expect(verdict("The timeout is 30 seconds.", "The timeout is 30s.").covered).toBe(true)
    expect(verdict("Version 4.8.0 shipped.", "Version `4.8.0` shipped.").covered).toBe(true)
    expect(verdict("The index has 4.2 million documents.", "The index has 4200000 documents.").covered).toBe(true)
  })
})

describe("coverage: units", () => {
  it("fires when the number stays but its unit changes", () => {
    expect(verdict("The timeout is 3000 ms.", "The timeout is 3000 s.")).toMatchObject({ covered: false, loss: "unit" })
    expect(verdict("The image is 480 MB.", "The image is 480 GB.")).toMatchObject({ covered: false, loss: "unit" })
    expect(verdict("The limit is 1536 MiB.", "The limit is 1536 MB.")).toMatchObject({ covered: false, loss: "unit" })
    expect(verdict("It allows 100 requests per second.", "It allows 100 requests per minute.")).toMatchObject({ covered: false, loss: "unit" })
    expect(verdict("Sample 25% of users.", "Sample 25 users.")).toMatchObject({ covered: false, loss: "unit" })
    expect(verdict("Use 2-space indentation.", "Use 2-tab indentation.")).toMatchObject({ covered: false, loss: "unit" })
  })

  it("stays silent for spellings of the same unit", () => {
    expect(verdict("Keys expire after 12 hours.", "Keys expire after 12 h.").covered).toBe(true)
    expect(verdict("It peaked at 64MB.", "It peaked at 64 megabytes.").covered).toBe(true)
    expect(verdict("It peaked at 120 msg/s.", "It peaked at 120 msg per second.").covered).toBe(true)
  })
})

describe("coverage: dates", () => {
  it("fires when a date changes or turns vague", () => {
    expect(verdict("Keys were rotated on 2026-04-01.", "Keys were rotated on 2026-01-04.")).toMatchObject({ covered: false, loss: "date" })
    expect(verdict("Keys were rotated on 2026-04-01.", "Keys were rotated in April.")).toMatchObject({ covered: false, loss: "date" })
    expect(verdict("Keys were rotated on 2026-04-01.", "Keys were rotated recently.")).toMatchObject({ covered: false, loss: "date" })
  })

  it("stays silent for written forms of the same date", () => {
    for (const written of ["1 April 2026", "April 1, 2026", "Apr 1st, 2026", "2026/04/01"]) {
      expect(verdict("Keys were rotated on 2026-04-01.", `Keys were rotated on ${written}.`).covered).toBe(true)
    }
  })
})

describe("coverage: negations", () => {
  it("fires when a negation goes, or the target adds one", () => {
    expect(verdict("The cache is not shared with staging.", "The cache is shared with staging.")).toMatchObject({ covered: false, loss: "negation" })
    expect(verdict("There is a deploy freeze in December.", "There is no deploy freeze in December.")).toMatchObject({ covered: false, loss: "negation" })
    expect(verdict("Agent forwarding is disabled.", "Agent forwarding is enabled.")).toMatchObject({ covered: false, loss: "negation" })
    expect(verdict("Do not add columns without a default.", "Do not add columns with a default.")).toMatchObject({ covered: false, loss: "negation" })
  })

  it("does not take a negation from a neighbouring claim", () => {
    expect(verdict("The user does not want semicolons.", "The user wants semicolons. They never use tabs.")).toMatchObject({ covered: false, loss: "negation" })
  })

  it("stays silent for contractions and other spellings of the same negation", () => {
    expect(verdict("The cache is not shared.", "The cache isn't shared.").covered).toBe(true)
    expect(verdict("Do not rerun the job.", "Never rerun the job.").covered).toBe(true)
    expect(verdict("The budget was raised; it should not be raised again.", "The budget was raised and it should not be raised again.").covered).toBe(true)
  })
})

describe("coverage: qualifiers", () => {
  it("fires when a qualifier goes, changes, or is added", () => {
    expect(verdict("The build usually takes 12 minutes.", "The build takes 12 minutes.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("Flaky on macOS only.", "Flaky on macOS.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("Retry at most 3 times.", "Retry at least 3 times.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("Memory must stay under 2 GB.", "Memory is 2 GB.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("Never retry on 4xx except 429.", "Never retry on 4xx, 429 included.")).toMatchObject({ covered: false })
    expect(verdict("Snapshots are kept for 35 days.", "Snapshots are kept for at least 35 days.")).toMatchObject({ covered: false, loss: "qualifier" })
    expect(verdict("Requires Node 20.11 or later.", "Requires Node 20.11.")).toMatchObject({ covered: false, loss: "qualifier" })
  })

  it("stays silent for synonyms of the same qualifier and a moved 'only'", () => {
    expect(verdict("It takes about 40 minutes.", "It takes roughly 40 minutes.").covered).toBe(true)
    expect(verdict("Retry up to 5 times.", "Retry at most 5 times.").covered).toBe(true)
    expect(verdict("It fails on macOS only.", "On macOS only, it fails.").covered).toBe(true)
    expect(verdict("Under 800 ms is fine.", "under 800ms is fine.").covered).toBe(true)
  })

  it("reads 'under' and 'over' as qualifiers only before a number", () => {
    expect(extractClaims("The change is under review.")[0]!.anchors!.qualifiers).toEqual([])
    expect(extractClaims("The image is under 500 MB.")[0]!.anchors!.qualifiers).toEqual(["below 500"])
  })
})

describe("coverage: named entities", () => {
  it("fires when a product, person, host, file, identifier or day changes or goes", () => {
    expect(verdict("Sessions are cached in Redis.", "Sessions are cached in Memcached.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("Hotfixes need approval from Maria.", "Hotfixes need approval from the release manager.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("The runner is ci-runner-07.", "The runner is ci-runner-08.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("The client lives in src/net/client.ts.", "The client lives in src/net/http.ts.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("The flag is checkout_v2.", "The flag is checkout_v3.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("Connect to bastion.internal.acme.io.", "Connect to bastion.acme.io.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("Run `npm test -- --runInBand` first.", "Run `npm test` first.")).toMatchObject({ covered: false, loss: "entity" })
    expect(verdict("Submit no later than Tuesday.", "Submit no later than Wednesday.")).toMatchObject({ covered: false, loss: "entity" })
  })

  it("stays silent for case, code ticks, plurals and possessives of the same name", () => {
    expect(verdict("Indexes live in OpenSearch on db-main-01.", "indexes live in opensearch on `db-main-01`.").covered).toBe(true)
    expect(verdict("Do not schedule meetings on Fridays.", "Don't schedule meetings on Friday.").covered).toBe(true)
    expect(verdict("The alert in Grafana fires at night.", "Grafana's alert fires at night.").covered).toBe(true)
  })

  it("requires a sentence's capitalised first word, which may be a name", () => {
    expect(verdict("Pandas is pinned to 2.1.4.", "Polars is pinned to 2.1.4.")).toMatchObject({ covered: false, loss: "words" })
  })
})

describe("coverage: content words", () => {
  it("fires when too few of the claim's words are stated", () => {
    const result = verdict("Restarting the scheduler loses queued jobs.", "Restarting the gateway drops idle sockets.")
    expect(result).toMatchObject({ covered: false, loss: "words" })
    expect(result.reason).toMatch(/of its words are stated/)
  })

  it("stays silent for other forms of the same words (stemmed, irregular verbs folded)", () => {
    expect(verdict("The build took 12 minutes.", "The build takes 12 minutes.").covered).toBe(true)
    expect(verdict("Restarting the scheduler loses queued jobs.", "Restart of the scheduler: it loses the queued job.").covered).toBe(true)
  })

  it("lets a threshold of 1 require every content word", () => {
    expect(claimCoverage("The vacuum job takes 40 minutes.", ["The vacuum takes 40 minutes."], { minOverlap: 1 })[0]!.covered).toBe(false)
    expect(claimCoverage("The vacuum job takes 40 minutes.", ["The vacuum takes 40 minutes."], { minOverlap: 0.5 })[0]!.covered).toBe(true)
  })
})
