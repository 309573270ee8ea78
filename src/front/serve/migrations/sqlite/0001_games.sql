-- The games and their moves. A store written before schema versions existed (version 0)
-- already has these tables: IF NOT EXISTS keeps them as they are.
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    size INTEGER NOT NULL,
    level TEXT NOT NULL,
    color TEXT NOT NULL,
    komi REAL NOT NULL,
    handicap INTEGER NOT NULL,
    result TEXT,
    dead TEXT NOT NULL DEFAULT '',
    created INTEGER NOT NULL,
    last_active INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    key TEXT NOT NULL REFERENCES games(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    move TEXT NOT NULL,
    PRIMARY KEY (key, number)
) WITHOUT ROWID;
