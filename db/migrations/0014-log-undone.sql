-- Each line of the log says whether it was undone (set by the undo, in its transaction), where
-- it was told only by an undo line elsewhere naming it. Whether a line is undone was a lookup
-- of those undo lines for every line looked at; with the statistics of a log that had grown
-- since it was analyzed (a backup being imported, in one transaction), PostgreSQL planned it as
-- a scan of the whole log for every line, and a campaign with a thousand undone rolls took a
-- quarter of a second to load. Now it is a column of the line itself.
ALTER TABLE event_log ADD COLUMN undone boolean NOT NULL DEFAULT false;
UPDATE event_log l SET undone = true
    FROM event_log u
    WHERE u.campaign_id = l.campaign_id AND u.action = 'undo'
      AND (u.detail ->> 'undid')::bigint = l.seq;
