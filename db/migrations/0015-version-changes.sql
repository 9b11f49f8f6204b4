-- Every change of a campaign's or a grand campaign's version is written down, in the write's own
-- transaction, as a row of m44_changes: the id, the version, what it is ('c' a campaign, 'g' a
-- grand campaign) and the transaction's id. Each m44d reads the rows of the transactions that
-- committed since its last look, every few milliseconds, on one connection of its own
-- (db/listener.c), and so knows every current version without asking, whoever made the change:
-- m44d or a hand-made UPDATE.
--
-- In place of NOTIFY m44d_versions (migrations 0008 and 0011): PostgreSQL serializes the commits
-- of transactions that notify (each holds one lock from before its commit until its commit is
-- flushed to disk), so every write of every daemon waited for the one before it to reach the
-- disk; a row here is one more row in the write, and commits go on together.
--
-- Which transactions committed between two looks is told by two snapshots
-- (pg_current_snapshot): a row is new when its transaction is visible in the second and was not
-- in the first. The table is UNLOGGED: it is not written to the WAL, and a crash empties it,
-- which breaks every daemon's connection anyway (a daemon that connects again forgets all it
-- knew). Rows about a minute old are deleted by the daemons; m44_changes_pruned says below which
-- transaction id rows may be gone, so that a daemon whose last look is older than that (it was
-- stopped, or its connection was slow) knows it may have missed changes, and forgets all it knew.
-- (One row: its one check names both columns, as the checks of one column are domains'.)
CREATE UNLOGGED TABLE m44_changes (
    xid     xid8 NOT NULL DEFAULT pg_current_xact_id(),
    id      uuid NOT NULL,
    version bigint NOT NULL,
    kind    "char" NOT NULL
);
-- One row for each transaction and id: a transaction that moves a version twice (a grand
-- campaign's new key moves all its campaigns, then the one it was made through again) leaves its
-- last version.
CREATE UNIQUE INDEX m44_changes_xid ON m44_changes (xid, id);
CREATE UNLOGGED TABLE m44_changes_pruned (
    one   boolean PRIMARY KEY DEFAULT true,
    below xid8 NOT NULL,
    CONSTRAINT changes_pruned_row CHECK (one AND below IS NOT NULL)
);

CREATE FUNCTION m44_version_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO m44_changes (id, version, kind)
        VALUES (NEW.id, NEW.version, CASE TG_TABLE_NAME WHEN 'grand_campaigns' THEN 'g' ELSE 'c' END)
        ON CONFLICT (xid, id) DO UPDATE SET version = excluded.version;
    RETURN NULL;
END
$$;

DROP TRIGGER campaigns_version_notify ON campaigns;
DROP TRIGGER grand_campaigns_version_notify ON grand_campaigns;
DROP FUNCTION m44_notify_version();

CREATE TRIGGER campaigns_version_changed
    AFTER UPDATE OF version ON campaigns
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION m44_version_changed();

CREATE TRIGGER grand_campaigns_version_changed
    AFTER UPDATE OF version ON grand_campaigns
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION m44_version_changed();
