import { NotFound } from "../../domain/Errors.js"

/** "no bundle named X" with the bundles there are (exit 1): for `bundle show`, `--bundle` of search, curate and proposal list. */
export const bundleNotFound = (name: string, known: ReadonlyArray<string>) =>
  new NotFound({
    what: "bundle",
    name,
    message: `no bundle named '${name}'`,
    hint: known.length === 0 ? "no bundles are configured; add one with `akm bundle add <folder>`" : `configured bundles: ${known.join(", ")}`
  })
