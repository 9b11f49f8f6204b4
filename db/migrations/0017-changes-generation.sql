-- The record of changes (migration 0015) says which record it is: m44_changes_pruned always holds
-- its one row, and `generation` is drawn anew each time the record starts over. A daemon that
-- finds the row gone, or another generation than at its last look, knows the record was emptied
-- since (a crash empties UNLOGGED tables; a dump restored without their rows leaves them empty)
-- and that changes may have gone unseen: it forgets all it knew, and puts the row back. This holds
-- where the daemon's connection outlives the server's crash (a pooler between them). A record
-- whose transaction ids are beyond the database's own (restored from a dump with its rows) is
-- not this database's: the daemon that finds it empties it and starts it over.
ALTER TABLE m44_changes_pruned ADD COLUMN generation uuid NOT NULL DEFAULT gen_random_uuid();
INSERT INTO m44_changes_pruned (below) VALUES ('0') ON CONFLICT (one) DO NOTHING;
