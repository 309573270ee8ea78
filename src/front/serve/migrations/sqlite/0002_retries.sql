-- Retry-safe requests: the client's id of the request that created a game (a resent
-- creation finds the game), and the number an undo was asked with (a resent undo finds it).
ALTER TABLE games ADD COLUMN request_id TEXT;
ALTER TABLE games ADD COLUMN undone_from INTEGER;
CREATE UNIQUE INDEX games_by_request ON games (client, request_id);
CREATE INDEX games_by_last_active ON games (last_active);
