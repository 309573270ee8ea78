-- Each game's version: one more with every change of its moves or ending, so that a server
-- whose copy is older than the store's (another server changed the game since) has its write
-- refused, and a read finds out that its copy is old. The games there start at version 0.
ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
