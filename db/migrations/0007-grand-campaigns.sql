-- Grand campaigns (RULES.md 8, API.md "Grand campaigns") and the group's chat (webhooks).

-- A grand campaign links campaigns played in a fixed order by the same group, with one set of
-- keys: its campaigns carry the same key hashes (a re-issue changes them all). Its version moves
-- whenever one of its campaigns changes, for its ETag and long polls.
CREATE TABLE grand_campaigns (
    id                 uuid PRIMARY KEY,
    seq                bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    name               text NOT NULL,
    grand_ruleset      text NOT NULL,
    what_if            boolean NOT NULL,
    dice               m44_dice NOT NULL,
    player_allies      text NOT NULL,
    player_axis        text NOT NULL,
    organizer_key_hash bytea NOT NULL,
    allies_key_hash    bytea NOT NULL,
    axis_key_hash      bytea NOT NULL,
    organizer_key_prev bytea,
    allies_key_prev    bytea,
    axis_key_prev      bytea,
    version            bigint NOT NULL DEFAULT 1,
    created_at         timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE campaigns ADD COLUMN grand_campaign_id uuid REFERENCES grand_campaigns (id),
    ADD COLUMN grand_index m44_ordinal;
CREATE UNIQUE INDEX campaigns_grand_place ON campaigns (grand_campaign_id, grand_index)
    WHERE grand_campaign_id IS NOT NULL;

-- The chat: a webhook URL per campaign or grand campaign (a secret: never shown back, never
-- logged), with the kind of body it takes, and an outbox of messages written in the same
-- transaction as the action they tell of, delivered by a background worker: an action never
-- waits for the chat, and a message is never lost to a restart. A campaign of a grand campaign
-- without a chat of its own tells the grand campaign's.
CREATE DOMAIN m44_chat_kind AS text
    CONSTRAINT chat_kind_value CHECK (VALUE IN ('discord', 'slack', 'generic'));
ALTER TABLE campaigns ADD COLUMN webhook_url text, ADD COLUMN webhook_kind m44_chat_kind,
    ADD CONSTRAINT campaigns_webhook CHECK ((webhook_url IS NULL) = (webhook_kind IS NULL));
ALTER TABLE grand_campaigns ADD COLUMN webhook_url text, ADD COLUMN webhook_kind m44_chat_kind,
    ADD CONSTRAINT grand_campaigns_webhook CHECK ((webhook_url IS NULL) = (webhook_kind IS NULL));

CREATE DOMAIN m44_delivery AS text
    CONSTRAINT delivery_value CHECK (VALUE IN ('pending', 'delivered', 'failed'));
-- A chat's messages are sent in order: its scope is the id of the campaign or grand campaign
-- whose chat it is (the campaigns of a grand campaign without a chat of their own share it).
CREATE TABLE outbox (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope        uuid NOT NULL,
    campaign_id  uuid REFERENCES campaigns (id), -- what it is about (NULL: the grand campaign)
    url          text,                   -- where to (a secret: cleared once it is sent or given up)
    kind         m44_chat_kind NOT NULL, -- the body the chat takes
    message      jsonb NOT NULL,         -- {event, text, campaign, grand_campaign, at}
    state        m44_delivery NOT NULL DEFAULT 'pending',
    attempts     m44_count NOT NULL DEFAULT 0,
    next_at      timestamptz NOT NULL DEFAULT now(), -- due; while one is being sent, its lease
    last_error   text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    CONSTRAINT outbox_url CHECK (state <> 'pending' OR url IS NOT NULL)
);
-- Due messages, and the first one still pending of each chat (sent in order).
CREATE INDEX outbox_due ON outbox (next_at) WHERE state = 'pending';
CREATE INDEX outbox_pending ON outbox (scope, id) WHERE state = 'pending';
CREATE INDEX outbox_scope ON outbox (scope, id);
