-- Rules fidelity (RULES.md 7 and 9): multi-map battles, battle features, sudden-death results,
-- pre-battle rolls, the battle a What-if event was picked for, and granted tokens kept.

-- A battle may span several D-Day Landings maps (their ids), may have features an effect asks
-- about ("destroyers"), and its result may be a win by the scenario's special condition.
ALTER TABLE battles
    ADD COLUMN maps text[],
    ADD COLUMN features text[] NOT NULL DEFAULT '{}',
    ADD COLUMN sudden_death boolean NOT NULL DEFAULT false;

-- A roll before a battle that an effect calls for (Naval Struggle's three dice).
ALTER DOMAIN m44_purpose DROP CONSTRAINT purpose_value;
ALTER DOMAIN m44_purpose ADD CONSTRAINT purpose_value
    CHECK (VALUE IN ('what_if', 'victory_events', 'reserve', 'pre_battle'));

-- The one battle a side picked for an event (Night Attacks).
ALTER TABLE effects ADD COLUMN picked_battle m44_ordinal;

-- Air Power / Air Sortie tokens and Veteran Stars won in reserve rolls, held by a side until the
-- organizer marks one used; removed when the campaign ends.
CREATE DOMAIN m44_held_state AS text
    CONSTRAINT held_state_value CHECK (VALUE IN ('held', 'used', 'removed'));
CREATE TABLE holdings (
    campaign_id  uuid NOT NULL REFERENCES campaigns (id),
    id           m44_ordinal NOT NULL,        -- 1, 2, 3 ... per campaign
    side         m44_side NOT NULL,
    grant_id     text NOT NULL,
    battle       m44_ordinal NOT NULL,        -- the battle whose reserve roll won it
    state        m44_held_state NOT NULL DEFAULT 'held',
    at           timestamptz NOT NULL DEFAULT now(),
    changed_at   timestamptz,
    PRIMARY KEY (campaign_id, id)
);
