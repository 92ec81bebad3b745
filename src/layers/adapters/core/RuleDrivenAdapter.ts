import { Effect } from "effect"
import type { BundleAdapter, BundleInfo, ValidateContext } from "../../../domain/Adapter.js"
import { guardSecretLinks } from "./SecretLinks.js"
import { authoringContextOf, makeRuleBook, type AuthoringParts, type RuleBook, type RuleRow } from "./RuleBook.js"

/** What an adapter is, apart from its rules and what it does. */
export type AdapterIdentity = Pick<BundleAdapter, "id" | "version" | "writable" | "description" | "includeHidden" | "couplingFiles">

/** What an adapter does, given the RuleBook its table makes. */
export interface RuleDrivenParts extends Omit<BundleAdapter, keyof AdapterIdentity | "rules" | "authoringContext"> {
  /**
   * What authors are told besides the rules, fixed or for a target; the
   * instructions, ruleHash and guidance hashes come from the table.
   */
  readonly authoring?: AuthoringParts | ((bundle: BundleInfo, target: string, op: "create" | "update" | "consolidate", ctx?: ValidateContext) => Effect.Effect<AuthoringParts>)
}

/**
 * An adapter built from a rule table: every part reads the table's RuleBook,
 * so a test can hand in a changed table and see validation and authoring
 * instructions follow (R-AD-3).
 */
export const ruleDrivenAdapter = (identity: AdapterIdentity, rules: ReadonlyArray<RuleRow>, partsOf: (book: RuleBook) => RuleDrivenParts): BundleAdapter => {
  const book = makeRuleBook(rules)
  const { authoring, ...parts } = partsOf(book)
  return {
    ...identity,
    rules,
    ...parts,
    project: guardSecretLinks(identity.id, parts.project),
    ...(authoring === undefined ? {} : {
      authoringContext: (bundle, target, op, ctx) =>
        Effect.map(typeof authoring === "function" ? authoring(bundle, target, op, ctx) : Effect.succeed(authoring), (text) => authoringContextOf(identity, book, text))
    })
  }
}
