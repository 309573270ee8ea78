-- Per-client request rates that hold across servers: the requests of `client` admitted in
-- each `second` (the database's clock, seconds since 1970). UNLOGGED: a count needs no
-- durability, so counting writes no WAL and waits for no disk (a crash empties the table).
-- The expiry job removes the seconds past.
CREATE UNLOGGED TABLE request_counts (
    client TEXT NOT NULL,
    second BIGINT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (client, second)
);
