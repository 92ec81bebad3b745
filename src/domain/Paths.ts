import { posix } from "node:path"

/** Every location the workspace owns, resolved once (spec 01 §1). */
export interface WorkspacePaths {
  readonly configDir: string
  readonly dataDir: string
  readonly cacheDir: string
  readonly configFile: string
  readonly lockFile: string
  readonly stateDb: string
  readonly logsDb: string
  readonly indexDb: string
  readonly archiveDir: string
  readonly txnDir: string
  readonly locksDir: string
  readonly packetsDir: string
  readonly bundlesDir: string
  readonly sourcesDir: string
  readonly sandboxDir: string
}

export interface PathOverrides {
  readonly configDir?: string | undefined
  readonly dataDir?: string | undefined
  readonly cacheDir?: string | undefined
}

/** Pure path arithmetic; `join` is injected so the domain stays platform-free. */
export const workspacePaths = (
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  join: (...parts: Array<string>) => string,
  overrides: PathOverrides = {}
): WorkspacePaths => {
  const pick = (override: string | undefined, akmVar: string, xdgVar: string, fallback: string) =>
    override ?? nonEmpty(env[akmVar]) ?? (nonEmpty(env[xdgVar]) !== undefined ? join(env[xdgVar]!, "akm") : join(home, fallback, "akm"))
  const configDir = pick(overrides.configDir, "AKM_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")
  const dataDir = pick(overrides.dataDir, "AKM_DATA_DIR", "XDG_DATA_HOME", join(".local", "share"))
  const cacheDir = pick(overrides.cacheDir, "AKM_CACHE_DIR", "XDG_CACHE_HOME", ".cache")
  return {
    configDir,
    dataDir,
    cacheDir,
    configFile: join(configDir, "config.yaml"),
    lockFile: join(dataDir, "akm.lock"),
    stateDb: join(dataDir, "state.db"),
    logsDb: join(dataDir, "logs.db"),
    indexDb: join(cacheDir, "index.db"),
    archiveDir: join(dataDir, "archive"),
    txnDir: join(dataDir, "txn"),
    locksDir: join(dataDir, "locks"),
    packetsDir: join(dataDir, "packets"),
    bundlesDir: join(dataDir, "bundles"),
    sourcesDir: join(cacheDir, "sources"),
    sandboxDir: join(cacheDir, "sandbox")
  }
}

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === "" ? undefined : value)

/** Expands `~` and resolves relative paths against `base` (pure: `home` is given). */
export const expandUserPath = (p: string, base: string, home: string): string =>
  p === "~" ? home : p.startsWith("~/") ? posix.join(home, p.slice(2)) : posix.resolve(base, p)
