import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { firstSentence, okfListings } from "../../../src/layers/adapters/okf/indexListing.js"
import { contextFromTree, type Tree } from "../../support/adapterHarness.js"

/** The okf adapter's `listings` facet (akm okf index; OKF §8). */

const listings = (tree: Tree) => Object.fromEntries(Effect.runSync(okfListings(contextFromTree(tree))).map((l) => [l.path, l.text]))
const concept = (type: string, title: string) => `---\ntype: ${type}\ntitle: ${title}\ndescription: About ${title}. More.\n---\n# ${title}\n`

describe("okf index listings", () => {
  it("drops a section whose entries all went away, and leaves code blocks and prose alone", () => {
    const index = [
      "# Intro",
      "",
      "Prose stays.",
      "",
      "```md",
      "* [Example](gone.md) - inside a fence, not an entry",
      "```",
      "",
      "# Old Type",
      "",
      "* [Gone](gone.md) - removed since",
      "",
      "# Note",
      "",
      "* [Kept](kept.md) - worded by hand",
      ""
    ].join("\n")
    const out = listings({ "index.md": index, "kept.md": concept("Note", "Kept") })
    expect(out["index.md"]).toBe([
      "# Intro",
      "",
      "Prose stays.",
      "",
      "```md",
      "* [Example](gone.md) - inside a fence, not an entry",
      "```",
      "",
      "# Note",
      "",
      "* [Kept](kept.md) - worded by hand",
      ""
    ].join("\n"))
  })

  it("lists nested folders, leaves hidden ones out, and encodes names a link cannot hold", () => {
    const out = listings({
      "a/b/deep.md": concept("Deep", "Deep"),
      ".hidden/secret.md": concept("Hidden", "Hidden"),
      "my notes (draft).md": "no frontmatter at all\n"
    })
    expect(Object.keys(out).sort()).toEqual(["a/b/index.md", "a/index.md", "index.md"])
    expect(out["index.md"]).toBe("# Concepts\n\n* [my notes (draft)](my%20notes%20%28draft%29.md)\n\n# Subdirectories\n\n* [a](a/index.md)\n")
    expect(out["a/index.md"]).toBe("# Subdirectories\n\n* [b](b/index.md)\n")
    expect(out["a/b/index.md"]).toBe("# Deep\n\n* [Deep](deep.md) - About Deep.\n")
    // Generation is a fixed point.
    expect(listings({ "a/b/deep.md": concept("Deep", "Deep"), "my notes (draft).md": "no frontmatter at all\n", ...out })).toEqual(out)
  })

  it("a description's first sentence, on one line", () => {
    expect(firstSentence("One row per order.\nThe grain is the order.")).toBe("One row per order.")
    expect(firstSentence("Version 2.5 of the API")).toBe("Version 2.5 of the API")
  })
})
