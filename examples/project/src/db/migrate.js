// Applies src/db/migrations/*.sql in order, one transaction per file.
export const migrate = async (client, files) => {
  for (const file of files) {
    await client.query("BEGIN")
    await client.query(file.sql)
    await client.query("COMMIT")
  }
}
