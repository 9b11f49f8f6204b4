-- Every change of a campaign's or a grand campaign's version is announced on the channel
-- m44d_versions as "<id> <version>". NOTIFY is transactional: the announcement leaves when the
-- write commits, and never for a write rolled back. Each m44d listens on one connection
-- (db/listener.c) and so knows every current version without asking (API.md, 304 and long
-- polls); whatever writes the version, m44d or a hand-made UPDATE, is heard.
CREATE FUNCTION m44_notify_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('m44d_versions', NEW.id::text || ' ' || NEW.version::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER campaigns_version_notify
    AFTER UPDATE OF version ON campaigns
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION m44_notify_version();

CREATE TRIGGER grand_campaigns_version_notify
    AFTER UPDATE OF version ON grand_campaigns
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION m44_notify_version();
