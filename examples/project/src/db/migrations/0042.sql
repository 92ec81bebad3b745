ALTER TABLE orders ADD COLUMN shipped_at timestamptz;
