import Database from "better-sqlite3"

/** Rows of one statement over a SQLite file, read with a connection of its own, as another process would. */
export const readRows = <A>(file: string, statement: string): ReadonlyArray<A> => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(statement).all() as Array<A>
  } finally {
    db.close()
  }
}
