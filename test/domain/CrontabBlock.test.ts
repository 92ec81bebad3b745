import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { blockAliases, blockId, entryCommand, withEntries, type CrontabEntry } from "../../src/domain/CrontabBlock.js"

const ID = blockId("/tmp/ws/data")
const entry = (alias: string, schedule = "@daily"): CrontabEntry => ({ alias, ref: `mine//tasks/${alias}`, digest: "ab".repeat(32), schedule, command: `akm task run ${alias} --scheduled` })
const apply = (text: string, entries: ReadonlyArray<CrontabEntry>, id = ID): string => Either.getOrThrow(withEntries(text, id, entries))

describe("akm's crontab block (spec 07 §3)", () => {
  const originals = ["", "0 1 * * * echo mine\n", "MAILTO=\"\"\n0 1 * * * echo mine", "a\r\nb\r\n", "\n\n# only comments\n"]

  it("adding then removing the entries leaves every original byte-identical", () => {
    for (const text of originals) {
      const one = apply(text, [entry("nightly")])
      expect(one.startsWith(text), JSON.stringify(text)).toBe(true)
      const two = apply(one, [entry("nightly"), entry("weekly", "0 4 * * 0")])
      expect(apply(two, []), JSON.stringify(text)).toBe(text)
      expect(apply(one, []), JSON.stringify(text)).toBe(text)
    }
  })

  it("writes exactly one marked block; a change is made in place, the rest untouched", () => {
    const text = apply("0 1 * * * mine\n", [entry("a")]) + "0 2 * * * added later by hand\n"
    const next = apply(text, [entry("a"), entry("b")])
    expect(next.match(/^# BEGIN akm tasks/gm)).toHaveLength(1)
    expect(next.startsWith("0 1 * * * mine\n# BEGIN")).toBe(true)
    expect(next.endsWith("# END akm tasks " + ID + "\n0 2 * * * added later by hand\n")).toBe(true)
    expect(Either.getOrThrow(blockAliases(next, ID))).toEqual(["a", "b"])
    expect(apply(next, [])).toBe("0 1 * * * mine\n0 2 * * * added later by hand\n")
  })

  it("two workspaces keep two blocks", () => {
    const other = blockId("/tmp/other/data")
    const both = apply(apply("", [entry("a")]), [entry("b")], other)
    expect(Either.getOrThrow(blockAliases(both, ID))).toEqual(["a"])
    expect(Either.getOrThrow(blockAliases(both, other))).toEqual(["b"])
    expect(apply(apply(both, []), [], other)).toBe("")
  })

  it("refuses a damaged block, naming the line", () => {
    const good = apply("x\n", [entry("a")])
    const noEnd = good.replace(/# END.*\n/, "")
    expect(withEntries(noEnd, ID, [])).toEqual(Either.left({ line: 2, message: `a 'BEGIN akm tasks ${ID}' marker without its END` }))
    const noBegin = good.replace(/# BEGIN.*\n/, "")
    expect(Either.getLeft(withEntries(noBegin, ID, [])).pipe((o) => o._tag === "Some" && o.value.message)).toMatch(/END .* without its BEGIN/)
    expect(Either.isLeft(withEntries(good + good, ID, [entry("a")]))).toBe(true)
    const swapped = `# END akm tasks ${ID}\n# BEGIN akm tasks ${ID}\n`
    expect(Either.isLeft(withEntries(swapped, ID, []))).toBe(true)
  })

  it("the entry names explicit AKM_* dirs and absolute paths, quoted, with % escaped", () => {
    const line = Either.getOrThrow(entryCommand({ configDir: "/c onf", dataDir: "/d%x", cacheDir: "/c" }, ["/usr/bin/node", "/opt/akm/bin/akm.js"], "nightly"))
    expect(line).toBe("AKM_CONFIG_DIR='/c onf' AKM_DATA_DIR=/d\\%x AKM_CACHE_DIR=/c /usr/bin/node /opt/akm/bin/akm.js task run nightly --scheduled")
    expect(Either.isLeft(entryCommand({ configDir: "/a\nb", dataDir: "/d", cacheDir: "/c" }, ["node", "akm"], "x"))).toBe(true)
  })
})
