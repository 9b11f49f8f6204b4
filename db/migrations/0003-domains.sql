-- The fixed vocabularies and the ranges of 0001's CHECK constraints, as domains. A table's
-- CHECK constraints are read back from the catalog and prepared again by every statement
-- that writes a row (all of them, whatever the statement sets); a domain's are prepared once
-- per connection and checked only where a value of the domain is written. The same values
-- are refused as before. rolls' CHECK across two columns stays a table constraint.

CREATE DOMAIN m44_side AS text CONSTRAINT side_value CHECK (VALUE IN ('allies', 'axis'));
CREATE DOMAIN m44_actor AS text
    CONSTRAINT actor_value CHECK (VALUE IN ('organizer', 'allies', 'axis', 'system'));
CREATE DOMAIN m44_dice AS text CONSTRAINT dice_value CHECK (VALUE IN ('server', 'table', 'either'));
CREATE DOMAIN m44_status AS text CONSTRAINT status_value CHECK (VALUE IN ('active', 'finished'));
CREATE DOMAIN m44_phase AS text CONSTRAINT phase_value
    CHECK (VALUE IN ('setup', 'victory_events', 'reserves', 'ready', 'finished'));
CREATE DOMAIN m44_purpose AS text
    CONSTRAINT purpose_value CHECK (VALUE IN ('what_if', 'victory_events', 'reserve'));
CREATE DOMAIN m44_source AS text CONSTRAINT source_value CHECK (VALUE IN ('server', 'table'));
CREATE DOMAIN m44_count AS integer CONSTRAINT count_value CHECK (VALUE >= 0);
CREATE DOMAIN m44_ordinal AS integer CONSTRAINT ordinal_value CHECK (VALUE >= 1);

ALTER TABLE campaigns
    DROP CONSTRAINT campaigns_dice_check, DROP CONSTRAINT campaigns_status_check,
    DROP CONSTRAINT campaigns_next_roll_check, DROP CONSTRAINT campaigns_tokens_allies_check,
    DROP CONSTRAINT campaigns_tokens_axis_check, DROP CONSTRAINT campaigns_winner_check,
    ALTER dice TYPE m44_dice, ALTER status TYPE m44_status, ALTER next_roll TYPE m44_ordinal,
    ALTER tokens_allies TYPE m44_count, ALTER tokens_axis TYPE m44_count,
    ALTER winner TYPE m44_side;

ALTER TABLE battles
    DROP CONSTRAINT battles_number_check, DROP CONSTRAINT battles_first_player_check,
    DROP CONSTRAINT battles_commissar_check, DROP CONSTRAINT battles_phase_check,
    DROP CONSTRAINT battles_winner_check,
    ALTER number TYPE m44_ordinal, ALTER first_player TYPE m44_side,
    ALTER commissar TYPE m44_side, ALTER phase TYPE m44_phase, ALTER winner TYPE m44_side;

ALTER TABLE rolls
    DROP CONSTRAINT rolls_n_check, DROP CONSTRAINT rolls_side_check,
    DROP CONSTRAINT rolls_purpose_check, DROP CONSTRAINT rolls_source_check,
    ALTER n TYPE m44_ordinal, ALTER side TYPE m44_side, ALTER purpose TYPE m44_purpose,
    ALTER source TYPE m44_source;

ALTER TABLE reserve_choices
    DROP CONSTRAINT reserve_choices_side_check, DROP CONSTRAINT reserve_choices_cost_check,
    DROP CONSTRAINT reserve_choices_tokens_after_check,
    ALTER side TYPE m44_side, ALTER cost TYPE m44_count, ALTER tokens_after TYPE m44_count;

ALTER TABLE token_ledger
    DROP CONSTRAINT token_ledger_side_check, DROP CONSTRAINT token_ledger_balance_check,
    ALTER side TYPE m44_side, ALTER balance TYPE m44_count;

ALTER TABLE event_log DROP CONSTRAINT event_log_actor_check, ALTER actor TYPE m44_actor;
