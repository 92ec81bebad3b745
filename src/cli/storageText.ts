import type { StorageStatus } from "../services/StorageBackend.js"

/** One line for `akm info` and `akm health`: the backend, the server (never its credentials), version and reachability. */
export const storageText = (storage: StorageStatus): string =>
  storage.backend === "sqlite"
    ? "sqlite (state.db, logs.db)"
    : `postgres ${storage.server ?? ""} ${storage.reachable ? `(PostgreSQL ${storage.version ?? "?"})` : "(unreachable)"}`.replace("  ", " ")
