-- The AI's reply computed once across servers sharing the file: the server that computes the
-- reply to move `number` of a game holds its lease until `expires` (SQLite's clock, seconds
-- since 1970); another server waits for the stored reply meanwhile, and takes the lease over
-- once it has expired.
CREATE TABLE ai_leases (
    key TEXT PRIMARY KEY REFERENCES games(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
);
