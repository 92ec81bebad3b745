import { describe, expect, it } from "vitest"
import { htmlToMarkdown } from "../../../src/layers/materializers/website/HtmlToMarkdown.js"
import { pagePath, PagePaths } from "../../../src/layers/materializers/website/PagePath.js"
import { looksBinary, resolveLink } from "../../../src/layers/materializers/website/Links.js"

const filler = "Akm keeps agent knowledge local, indexed and searchable in milliseconds, with every change made through a reviewed proposal. "

const docsPage = `<!doctype html>
<html lang="en">
<head>
  <title>Getting started | Example Docs</title>
  <style>.secret-style { color: red }</style>
  <script>window.trackingCanary = "SCRIPT-CANARY"</script>
</head>
<body>
  <header class="site-header"><a href="/">Example Docs</a></header>
  <nav class="sidebar">
    <ul><li><a href="/guide/start">Start</a></li><li><a href="/api/">API</a></li><li><a href="https://other.example.net/x">Elsewhere</a></li></ul>
  </nav>
  <main>
    <article>
      <h1>Getting started</h1>
      <p>${filler.repeat(3)}</p>
      <h2>Install</h2>
      <pre><code class="language-bash">npm install example
example --help</code></pre>
      <h3>Options</h3>
      <ul>
        <li>first option</li>
        <li>second option, see <a href="../reference/options.html#flags">the reference</a></li>
      </ul>
      <ol><li>step one</li><li>step two</li></ol>
      <table>
        <thead><tr><th>flag</th><th>meaning</th></tr></thead>
        <tbody><tr><td><code>--quiet</code></td><td>no progress | output</td></tr><tr><td>--force</td><td>refetch</td></tr></tbody>
      </table>
      <p>${filler.repeat(2)} Mail us at <a href="mailto:docs@example.org">docs@example.org</a> or <a href="javascript:void(0)">click</a>.</p>
      <noscript>NOSCRIPT-CANARY</noscript>
    </article>
  </main>
  <footer class="site-footer">FOOTER-CANARY Copyright 2026 Example Inc. <a href="/privacy">Privacy</a></footer>
  <script>console.log("SCRIPT-CANARY-2")</script>
</body>
</html>`

describe("htmlToMarkdown (R-WEB-6)", () => {
  it("keeps the main content and drops navigation, footer, scripts and styles", async () => {
    const page = await htmlToMarkdown(docsPage, "https://docs.example.org/guide/getting-started")
    expect(page.markdown).toContain("Akm keeps agent knowledge local")
    for (const canary of ["FOOTER-CANARY", "SCRIPT-CANARY", "NOSCRIPT-CANARY", "secret-style", "trackingCanary", "Elsewhere"]) {
      expect(page.markdown).not.toContain(canary)
    }
    expect(page.markdown).not.toMatch(/<\/?(script|style|div|nav|footer)\b/i)
  })

  it("converts headings, lists, code, links and tables", async () => {
    const { markdown } = await htmlToMarkdown(docsPage, "https://docs.example.org/guide/getting-started")
    expect(markdown.startsWith("# Getting started\n")).toBe(true)
    expect(markdown.match(/^# /gm)).toHaveLength(1)
    expect(markdown).toContain("## Install")
    expect(markdown).toContain("### Options")
    expect(markdown).toContain("```bash\nnpm install example\nexample --help\n```")
    expect(markdown).toMatch(/^- +first option$/m)
    expect(markdown).toMatch(/^1\. +step one$/m)
    // Relative links become absolute; the text keeps the fragment (the crawl's link list does not).
    expect(markdown).toContain("[the reference](https://docs.example.org/reference/options.html#flags)")
    expect(markdown).toContain("[docs@example.org](mailto:docs@example.org)")
    expect(markdown).not.toContain("javascript:")
    expect(markdown).toContain("| flag | meaning |\n| --- | --- |\n| `--quiet` | no progress \\| output |\n| \\--force | refetch |")
  })

  it("extracts the title and every same-page link, absolute and without fragments", async () => {
    const page = await htmlToMarkdown(docsPage, "https://docs.example.org/guide/getting-started")
    expect(page.title).toBe("Getting started")
    expect(page.links).toEqual([
      "https://docs.example.org/",
      "https://docs.example.org/guide/start",
      "https://docs.example.org/api/",
      "https://other.example.net/x",
      "https://docs.example.org/reference/options.html",
      "https://docs.example.org/privacy"
    ])
  })

  it("lets Readability find the content of a page that does not mark up its main region", async () => {
    const page = await htmlToMarkdown(
      `<html><head><title>Changelog - Example</title></head><body>
<div id="topbar"><a href="/">Home</a> | <a href="/login">Log in</a> SIDEBAR-CANARY</div>
<div class="sidebar widget"><a href="/tags/a">tag a</a> <a href="/tags/b">tag b</a> <a href="/tags/c">tag c</a> SIDEBAR-CANARY</div>
<div id="content" class="post"><h2>Changelog</h2><p>${filler.repeat(4)}</p><p>Version 2.1 adds <em>streaming</em> exports. ${filler.repeat(3)}</p></div>
<div class="comments">Leave a comment COMMENT-CANARY</div>
</body></html>`,
      "https://blog.example.org/changelog"
    )
    expect(page.markdown).toContain("Version 2.1 adds _streaming_ exports.")
    expect(page.markdown).not.toContain("SIDEBAR-CANARY")
    expect(page.markdown).not.toContain("COMMENT-CANARY")
    expect(page.markdown.startsWith("# Changelog\n")).toBe(true)
    expect(page.links).toContain("https://blog.example.org/tags/a")
  })

  it("a page too big for Readability (over 10,000 elements, no main region) falls back to its body", async () => {
    const rows = Array.from({ length: 10_050 }, (_, i) => `<div><span>row ${i}</span></div>`).join("")
    const page = await htmlToMarkdown(`<html><head><title>Huge</title></head><body><nav>MENU-CANARY</nav>${rows}</body></html>`, "https://d.example.org/huge")
    expect(page.markdown.startsWith("# Huge\n")).toBe(true)
    expect(page.markdown).toContain("row 10049")
    expect(page.markdown).not.toContain("MENU-CANARY")
  })

  it("adds an H1 from <title> when the content has no heading, and honours <base href>", async () => {
    const page = await htmlToMarkdown(
      `<html><head><title>Release notes</title><base href="https://docs.example.org/v2/"></head><body><p>Version 2 ships <a href="changes">changes</a>.</p><pre>plain ${"`".repeat(3)} block</pre></body></html>`,
      "https://docs.example.org/notes"
    )
    expect(page.title).toBe("Release notes")
    expect(page.markdown.startsWith("# Release notes\n\nVersion 2 ships [changes](https://docs.example.org/v2/changes).")).toBe(true)
    expect(page.markdown).toContain("````\nplain ``` block\n````")
    expect(page.links).toEqual(["https://docs.example.org/v2/changes"])
  })

  it("falls back to the URL for a page without any title and survives broken markup", async () => {
    const page = await htmlToMarkdown("<div><p>unclosed <b>bold <i>text", "https://docs.example.org/a/b/faq%20page")
    expect(page.title).toBe("faq page")
    expect(page.markdown).toContain("unclosed **bold _text_**")
  })

  it("drops the menu of a short page too (Readability keeps whole bodies of short pages), but still lists its links", async () => {
    const page = await htmlToMarkdown(
      "<html><head><title>Home</title></head><body><header><a href='/'>Logo</a></header><nav><a href='/a'>Alpha</a> <a href='/b'>Beta</a></nav><main><h1>Home</h1><p>Hello world text.</p></main><footer>Footer</footer></body></html>",
      "https://d.example.org/"
    )
    expect(page.markdown).toBe("# Home\n\nHello world text.\n")
    expect(page.links).toEqual(["https://d.example.org/", "https://d.example.org/a", "https://d.example.org/b"])
  })

  it("renders a layout table (tables inside tables) as plain blocks", async () => {
    const page = await htmlToMarkdown(
      "<html><head><title>Old site</title></head><body><table><tr><td><table><tr><td>menu</td></tr></table></td><td><p>Body text of an old layout.</p></td></tr></table></body></html>",
      "https://old.example.org/"
    )
    expect(page.markdown).toContain("Body text of an old layout.")
    expect(page.markdown).not.toContain("| --- |")
  })
})

describe("page paths", () => {
  it("derive from the URL path", () => {
    expect(pagePath("https://d.example.org/")).toBe("index.md")
    expect(pagePath("https://d.example.org/guide/start")).toBe("guide/start.md")
    expect(pagePath("https://d.example.org/a/")).toBe("a/index.md")
    expect(pagePath("https://d.example.org/a/b.html")).toBe("a/b.md")
    expect(pagePath("https://d.example.org/caf%C3%A9/na%20me")).toBe("café/na-me.md")
    expect(pagePath("https://d.example.org/p?id=1")).toMatch(/^p-q[0-9a-f]{8}\.md$/)
    expect(pagePath("https://d.example.org/p?id=1")).not.toBe(pagePath("https://d.example.org/p?id=2"))
    expect(pagePath("https://d.example.org/.hidden/..%2F..%2Fetc/passwd")).toBe("hidden/etc/passwd.md")
    expect(pagePath("https://d.example.org/x.md/y")).toBe("x.md_/y.md")
  })

  it("never escape the root and use safe characters only", () => {
    for (const raw of ["/%2e%2e/%2e%2e/x", "/a/%00/b", "/a\\b", "/..;/x", "/%E0%A4%A/x", "/con/aux:1", "/" + "x".repeat(500)]) {
      const path = pagePath(`https://d.example.org${raw}`)
      expect(path.endsWith(".md")).toBe(true)
      for (const segment of path.split("/")) {
        expect(segment).not.toMatch(/^\.{1,2}$|^$/)
        expect(segment).toMatch(/^[\p{L}\p{N}._-]+$/u)
        expect(segment.length).toBeLessThanOrEqual(84)
      }
    }
  })

  it("get distinct names when two URLs would share a file", () => {
    const paths = new PagePaths()
    const taken = ["https://d.example.org/", "https://d.example.org/index", "https://d.example.org/a", "https://d.example.org/a.html", "https://d.example.org/A"].map((u) => paths.take(u))
    expect(taken[0]).toBe("index.md")
    expect(taken[2]).toBe("a.md")
    expect(new Set(taken.map((p) => p.toLowerCase())).size).toBe(taken.length)
  })
})

describe("links", () => {
  it("resolve, drop fragments and skip what is not http(s)", () => {
    expect(resolveLink("../b#x", "https://d.example.org/a/c")).toBe("https://d.example.org/b")
    expect(resolveLink("HTTPS://D.EXAMPLE.ORG:443/x", "https://d.example.org/")).toBe("https://d.example.org/x")
    expect(resolveLink("mailto:a@b.c", "https://d.example.org/")).toBeUndefined()
    expect(resolveLink("javascript:alert(1)", "https://d.example.org/")).toBeUndefined()
    expect(resolveLink("#top", "https://d.example.org/")).toBeUndefined()
    expect(resolveLink("https://user:pw@d.example.org/", "https://d.example.org/")).toBeUndefined()
    expect(looksBinary("https://d.example.org/logo.PNG")).toBe(true)
    expect(looksBinary("https://d.example.org/guide.html")).toBe(false)
  })
})
