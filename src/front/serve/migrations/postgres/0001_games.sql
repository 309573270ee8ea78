-- The games and their moves.
CREATE TABLE games (
    key TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    size INTEGER NOT NULL,
    level TEXT NOT NULL,
    color TEXT NOT NULL,
    komi DOUBLE PRECISION NOT NULL,
    handicap INTEGER NOT NULL,
    result TEXT,
    dead TEXT NOT NULL DEFAULT '',
    created BIGINT NOT NULL,
    last_active BIGINT NOT NULL
);
CREATE TABLE moves (
    key TEXT NOT NULL REFERENCES games(key) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    move TEXT NOT NULL,
    PRIMARY KEY (key, number)
);
