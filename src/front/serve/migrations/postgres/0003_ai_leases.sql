-- The AI's reply computed once across servers: the server that computes the reply to move
-- `number` of a game holds its lease until `expires` (the database's clock); another server
-- waits for the stored reply meanwhile, and takes the lease over once it has expired.
CREATE TABLE ai_leases (
    key TEXT PRIMARY KEY REFERENCES games(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    holder TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);
