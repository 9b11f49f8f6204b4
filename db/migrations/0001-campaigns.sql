-- Campaigns, their battles, every roll, choices, results, effects, tokens and the event log.
-- Sides are 'allies' and 'axis'. Keys are stored only as SHA-256 hashes.

CREATE TABLE campaigns (
    id              uuid PRIMARY KEY,
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE, -- listing order and cursor
    name            text NOT NULL,
    ruleset         text NOT NULL,
    what_if         boolean NOT NULL,
    dice            text NOT NULL CHECK (dice IN ('server', 'table', 'either')),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
    version         bigint NOT NULL DEFAULT 1,
    next_roll       integer NOT NULL DEFAULT 1 CHECK (next_roll >= 1),
    seed_epoch      integer NOT NULL DEFAULT 1,
    player_allies   text NOT NULL,
    player_axis     text NOT NULL,
    tokens_allies   integer NOT NULL CHECK (tokens_allies >= 0),
    tokens_axis     integer NOT NULL CHECK (tokens_axis >= 0),
    organizer_key_hash bytea NOT NULL,
    allies_key_hash    bytea NOT NULL,
    axis_key_hash      bytea NOT NULL,
    scenarios       jsonb,             -- the campaign's own scenario list, if it has one
    winner          text CHECK (winner IN ('allies', 'axis')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);

-- Server seeds (RULES.md 1.2). Only the commitment is public until revealed_at is set. A
-- campaign imported before its end has its earlier, unrevealed seed only as a commitment.
CREATE TABLE seeds (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    epoch        integer NOT NULL,
    seed         bytea CHECK (seed IS NULL OR length(seed) = 32), -- NULL: imported, unknown
    commitment   text NOT NULL,
    revealed_at  timestamptz,
    PRIMARY KEY (campaign_id, epoch)
);

CREATE TABLE battles (
    campaign_id   uuid NOT NULL REFERENCES campaigns (id),
    number        integer NOT NULL CHECK (number >= 1),
    scenario      text NOT NULL,
    first_player  text NOT NULL CHECK (first_player IN ('allies', 'axis')),
    cards_allies  integer NOT NULL,
    cards_axis    integer NOT NULL,
    medals_to_win integer NOT NULL,
    commissar     text CHECK (commissar IN ('allies', 'axis')),
    phase         text NOT NULL
                  CHECK (phase IN ('setup', 'victory_events', 'reserves', 'ready', 'finished')),
    winner        text CHECK (winner IN ('allies', 'axis')),
    medals_allies integer,
    medals_axis   integer,
    undeployed_allies integer,
    undeployed_axis   integer,
    objective_allies  integer,
    objective_axis    integer,
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    PRIMARY KEY (campaign_id, number)
);

-- Every roll, numbered 1, 2, 3 ... per campaign with no gap. Append-only.
-- battle is 0 for What-if rolls. detail holds what the roll offered (reserve options) or
-- picked (What-if event), as it was shown at the time.
CREATE TABLE rolls (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    n            integer NOT NULL CHECK (n >= 1),
    side         text NOT NULL CHECK (side IN ('allies', 'axis')),
    purpose      text NOT NULL CHECK (purpose IN ('what_if', 'victory_events', 'reserve')),
    battle       integer NOT NULL,
    source       text NOT NULL CHECK (source IN ('server', 'table')),
    client_seed  text,
    seed_epoch   integer,
    faces        text[] NOT NULL,
    detail       jsonb,
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (campaign_id, n),
    UNIQUE (campaign_id, purpose, battle, side),
    CHECK ((source = 'server') = (seed_epoch IS NOT NULL))
);

CREATE FUNCTION rolls_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rolls are append-only';
END
$$;
CREATE TRIGGER rolls_append_only BEFORE UPDATE OR DELETE ON rolls
    FOR EACH ROW EXECUTE FUNCTION rolls_append_only();

CREATE TABLE reserve_choices (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    battle       integer NOT NULL,
    side         text NOT NULL CHECK (side IN ('allies', 'axis')),
    chosen       jsonb NOT NULL,
    cost         integer NOT NULL CHECK (cost >= 0),
    tokens_after integer NOT NULL CHECK (tokens_after >= 0),
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (campaign_id, battle, side),
    FOREIGN KEY (campaign_id, battle) REFERENCES battles (campaign_id, number)
);

-- What-if events in force (one row per event, whoever rolled it) and their data as rolled.
CREATE TABLE effects (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    event_id     text NOT NULL,
    rolled_by    text[] NOT NULL,
    data         jsonb NOT NULL,
    seq          bigint GENERATED ALWAYS AS IDENTITY, -- the order they were rolled in
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (campaign_id, event_id)
);

-- Every change to a side's Reserve Tokens. The sum of delta per side is its current count.
CREATE TABLE token_ledger (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    seq          bigint GENERATED ALWAYS AS IDENTITY,
    side         text NOT NULL CHECK (side IN ('allies', 'axis')),
    delta        integer NOT NULL,
    balance      integer NOT NULL CHECK (balance >= 0),
    reason       text NOT NULL,
    battle       integer,
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (campaign_id, seq)
);

-- The first successful response to a POST with an Idempotency-Key, replayed byte for byte.
-- scope is the campaign id, or '' for requests that create a campaign.
CREATE TABLE idempotency (
    scope        text NOT NULL,
    key          text NOT NULL,
    method       text NOT NULL,
    path         text NOT NULL,
    request_hash bytea NOT NULL,
    status       integer NOT NULL,
    body         text NOT NULL,
    etag         text,
    location     text,
    at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);

-- Who did what, when.
CREATE TABLE event_log (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    seq          bigint GENERATED ALWAYS AS IDENTITY,
    at           timestamptz NOT NULL DEFAULT now(),
    actor        text NOT NULL CHECK (actor IN ('organizer', 'allies', 'axis', 'system')),
    action       text NOT NULL,
    detail       jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (campaign_id, seq)
);
