-- Policing in a cluster (issue 23).
--
-- A user's over-rate episode, one per cluster: each replica that sees the user above its agreed
-- rate for the policing's window writes [since, last] here; the first to find no episode within
-- the window before its since (no row, or last_ms older) starts one and records the OVER_RATE
-- SLA event, the others only move last_ms on. Times are epoch milliseconds of the writer's clock.
CREATE TABLE over_rate_episode (
    user_name  VARCHAR(100) NOT NULL,
    started_ms BIGINT NOT NULL,
    last_ms    BIGINT NOT NULL,
    PRIMARY KEY (user_name),
    CONSTRAINT ck_over_rate_episode_user CHECK (CHAR_LENGTH(user_name) > 0)
)${tableOptions};

-- Secrets the replicas share, created by the first replica that asks for one ('hop': the key
-- that seals a conversation message one replica forwards to another, so that the owner does
-- not police it a second time, while a caller that sets the forwarding header itself is policed).
CREATE TABLE cluster_secret (
    name   VARCHAR(100) NOT NULL,
    secret_hex VARCHAR(200) NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT ck_cluster_secret_name CHECK (CHAR_LENGTH(name) > 0)
)${tableOptions};
