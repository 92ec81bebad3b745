import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { immediateTransaction } from "./immediateTransaction.js"
import type { SqlDriver } from "./driver.js"
import type { SqlText } from "./index/sqlText.js"

/**
 * Runs one statement on the transaction's own connection when there is one:
 * through the client's statement wrapper each execution is traced and scoped,
 * and that keeps its parameters (whole documents) alive well past the
 * statement, which in a bulk write multiplies the heap (spec 10 §2 memory).
 */
const execute = <A extends object>(client: SqlClient.SqlClient, { text, params }: SqlText) =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
    Option.isSome(transaction)
      ? (transaction.value[0].execute(text, params as ReadonlyArray<never>, undefined) as Effect.Effect<ReadonlyArray<A>, SqlError>)
      : client.unsafe<A>(text, params as ReadonlyArray<never>))

/**
 * The statements of index/store.ts and usage.ts through an @effect/sql
 * client: for `:memory:` (a second connection would open another, empty
 * database) and for state.db, whose one connection StateStore and the
 * proposals share (StateDb.ts).
 */
export const clientDriver = (client: SqlClient.SqlClient): SqlDriver => {
  const driver: SqlDriver = {
    rows: <Row>(statement: SqlText) => execute<Row & object>(client, statement) as Effect.Effect<ReadonlyArray<Row>, SqlError>,
    values: ({ text, params }) => client.unsafe(text, params as ReadonlyArray<never>).values,
    run: (statement) => Effect.asVoid(execute(client, statement)),
    immediate: (f) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
        Option.isSome(transaction) ? f(driver) : immediateTransaction(client, f(driver)))
  }
  return driver
}
