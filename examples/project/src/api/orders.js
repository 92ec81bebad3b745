// GET /orders: the caller's orders, newest first.
export const listOrders = async (db, customer) => (await db.query("SELECT * FROM orders WHERE customer = $1 ORDER BY created DESC", [customer])).rows
