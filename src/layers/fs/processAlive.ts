import { readFileSync } from "node:fs"

/**
 * Whether a process with this pid runs on this host (EPERM: it runs, under
 * another user). A zombie does not run: a killed child whose parent died too
 * stays a zombie until init reaps it, and signal 0 still reaches it — on
 * Linux its state in /proc says so.
 */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  return !isZombie(pid)
}

const isZombie = (pid: number): boolean => {
  if (process.platform !== "linux") return false
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // "pid (comm) S …": comm may hold spaces and parentheses, the state follows the last ")".
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state === "Z" || state === "X"
  } catch {
    // Gone between the signal and the read.
    return true
  }
}
