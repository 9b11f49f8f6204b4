-- A change's announcement names what changed: "<id> <version> c" for a campaign, "... g" for a
-- grand campaign. The two share one space of ids, and each m44d answers a GET from what it
-- heard only for the kind it heard: a campaign's id asked for as a grand campaign is read from
-- the database (a 404), never answered with the campaign's version. A daemon older than this
-- reads the first two words, as before.
CREATE OR REPLACE FUNCTION m44_notify_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('m44d_versions', NEW.id::text || ' ' || NEW.version::text || ' ' ||
                      CASE TG_TABLE_NAME WHEN 'grand_campaigns' THEN 'g' ELSE 'c' END);
    RETURN NULL;
END
$$;
