#!/usr/bin/env node
// A throwaway PostgreSQL cluster for the Postgres suites (docs/team.md):
//
//   node scripts/pg-cluster.mjs [--] <command> [args…]
//
// initdb into a temp dir, listen on 127.0.0.1 only (a free port; the unix
// socket in the temp dir), create the database akm_test, run <command> with
// AKM_TEST_DATABASE_URL set, then stop the server and remove the dir — also
// when the command fails or the harness is interrupted. Exits with the
// command's status. PG_BIN names the server's bin dir (default
// /usr/lib/postgresql/15/bin). As root the server runs as the `postgres` user,
// since PostgreSQL refuses to run as root.
import { spawn, spawnSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const PG_BIN = process.env.PG_BIN || "/usr/lib/postgresql/15/bin"
const DATABASE = "akm_test"
const args = process.argv.slice(2)
const command = args[0] === "--" ? args.slice(1) : args
if (command.length === 0) {
  console.error("usage: node scripts/pg-cluster.mjs [--] <command> [args…]")
  process.exit(2)
}
if (!existsSync(join(PG_BIN, "initdb"))) {
  console.error(`pg-cluster: no initdb in ${PG_BIN}; install PostgreSQL 15 or set PG_BIN to its bin directory`)
  process.exit(2)
}

const asRoot = process.getuid?.() === 0
const quote = (arg) => `'${String(arg).replaceAll("'", `'\\''`)}'`

/** Runs a server tool, as `postgres` when we are root; throws with its output on failure. */
const tool = (name, toolArgs) => {
  const bin = join(PG_BIN, name)
  const result = asRoot
    ? spawnSync("su", ["postgres", "-s", "/bin/sh", "-c", [bin, ...toolArgs].map(quote).join(" ")], { encoding: "utf8" })
    : spawnSync(bin, toolArgs, { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`${name} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || result.error?.message}`)
  return result.stdout
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const dir = mkdtempSync(join(tmpdir(), "akm-pg-"))
const data = join(dir, "data")
const log = join(dir, "server.log")
let started = false
let cleaned = false

const cleanup = () => {
  if (cleaned) return
  cleaned = true
  if (started) {
    try {
      tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    } catch (error) {
      console.error(`pg-cluster: stopping the server: ${error.message}`)
    }
  }
  rmSync(dir, { recursive: true, force: true })
}

process.on("exit", cleanup)

let child
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child !== undefined && child.exitCode === null) child.kill(signal)
    cleanup()
    process.exit(signal === "SIGINT" ? 130 : 143)
  })
}

try {
  if (asRoot) chownSync(dir, Number(userId("postgres", "-u")), Number(userId("postgres", "-g")))
  tool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions"])
  let port
  // A port found free may be taken before the server binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort()
    try {
      tool("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, "start"])
      started = true
      break
    } catch (error) {
      if (attempt >= 3) throw new Error(`${error.message}\n${existsSync(log) ? readFileSync(log, "utf8") : ""}`)
    }
  }
  tool("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", DATABASE])
  const url = `postgres://postgres@127.0.0.1:${port}/${DATABASE}`
  console.error(`pg-cluster: PostgreSQL ${tool("postgres", ["--version"]).trim().replace(/^postgres \(PostgreSQL\) /, "")} on 127.0.0.1:${port}; running ${command.join(" ")}`)
  child = spawn(command[0], command.slice(1), { stdio: "inherit", env: { ...process.env, AKM_TEST_DATABASE_URL: url } })
  const status = await new Promise((resolve) => {
    child.once("error", (error) => {
      console.error(`pg-cluster: could not run ${command[0]}: ${error.message}`)
      resolve(127)
    })
    child.once("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : 143)))
  })
  cleanup()
  process.exit(status)
} catch (error) {
  console.error(`pg-cluster: ${error.message}`)
  cleanup()
  process.exit(1)
}

/** `id -u postgres` / `id -g postgres`. */
function userId(user, flag) {
  const result = spawnSync("id", [flag, user], { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`no ${user} user to run the server as (PostgreSQL refuses to run as root)`)
  return result.stdout.trim()
}
