import * as fs from "node:fs"

/**
 * Builds `depth` nested directories `d/d/…` under `root` with `deep.md` at the
 * bottom, by relative mkdirs (no long paths on the way: a 1,600-deep chain
 * has paths far past PATH_MAX). `at(level)` runs inside each level before its
 * child is made (to drop extra files on the way). Returns `root`.
 */
export const nestDirectories = (root: string, depth: number, at?: (level: number) => void): string => {
  const here = process.cwd()
  try {
    process.chdir(root)
    for (let i = 0; i < depth; i++) {
      at?.(i)
      fs.mkdirSync("d")
      process.chdir("d")
    }
    fs.writeFileSync("deep.md", "# deep\n\nat the bottom of the tree\n")
  } finally {
    process.chdir(here)
  }
  return root
}
