// Dumps an index.db's rows in a fixed order, as one text with a sha256 per
// table, to compare two builds of the same corpus (docs/decisions/0014-index-speed.md):
//
//   node bench/dumpIndex.mjs path/to/index.db [--rows]
//
// Times and paths that differ between runs (indexed_at, the bundle root and
// the manifest's mtimes) are left out; everything else — documents, JSON,
// links, outline, the words vocabulary (term, document and hit counts), the
// trigram rows, manifest sizes and hashes, bundle counts — is compared.
import { createHash } from "node:crypto"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const Database = require("better-sqlite3")

const [file, flag] = process.argv.slice(2)
if (file === undefined) {
  process.stderr.write("usage: node bench/dumpIndex.mjs index.db [--rows]\n")
  process.exit(2)
}
const db = new Database(file, { readonly: true, fileMustExist: true })
const has = (name) => db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== undefined
const queries = {
  documents: "SELECT ref, bundle, concept_id, adapter, type, name, description, tags, aliases, hints, quality, belief_state, superseded_by, status, stale_after, pinned, scope, path, hash, bytes, digest, inputs_digest, diversity FROM documents ORDER BY ref",
  document_json: "SELECT d.ref, j.doc, j.inputs FROM document_json j JOIN documents d ON d.id = j.id ORDER BY d.ref",
  links: "SELECT d.ref, l.target FROM links l JOIN documents d ON d.id = l.document_id ORDER BY d.ref, l.target",
  outline: "SELECT d.ref, o.position, o.depth, o.text, o.slug FROM outline o JOIN documents d ON d.id = o.document_id ORDER BY d.ref, o.position",
  vocabulary: "SELECT term, doc, cnt FROM documents_vocab ORDER BY term",
  words_rows: "SELECT d.ref FROM documents_fts f JOIN documents d ON d.id = f.rowid ORDER BY d.ref",
  trigram: has("documents_trigram") ? "SELECT d.ref, t.name, t.description, t.tags, t.content FROM documents_trigram t JOIN documents d ON d.id = t.rowid ORDER BY d.ref" : undefined,
  manifest: "SELECT bundle, path, size, hash FROM manifest ORDER BY bundle, path",
  bundles: "SELECT name, items, adapter, adapter_version, writable, errors, warnings, infos, stale_reason FROM bundles ORDER BY name"
}
const all = createHash("sha256")
for (const [table, text] of Object.entries(queries)) {
  if (text === undefined) continue
  const hash = createHash("sha256")
  let rows = 0
  for (const row of db.prepare(text).raw().iterate()) {
    const line = `${JSON.stringify(row)}\n`
    hash.update(line)
    all.update(`${table}\t${line}`)
    if (flag === "--rows") process.stdout.write(`${table}\t${line}`)
    rows++
  }
  if (flag !== "--rows") process.stdout.write(`${table}\t${rows}\t${hash.digest("hex").slice(0, 16)}\n`)
}
if (flag !== "--rows") process.stdout.write(`all\t${all.digest("hex")}\n`)
db.close()
