-- Operator state is the cluster's (issue 21): a console login is valid on every replica, and the
-- operator's switches (monitors off, concrete services taken out) hold for every replica.

-- A console session: the SHA-256 of its token (the token itself is never stored), its operator
-- and its last use. Removing the user ends the user's sessions.
CREATE TABLE console_session (
    token_hash   CHAR(64) NOT NULL,
    user_name    VARCHAR(100) NOT NULL,
    created_ms   BIGINT NOT NULL,
    last_used_ms BIGINT NOT NULL,
    PRIMARY KEY (token_hash),
    CONSTRAINT fk_console_session_user FOREIGN KEY (user_name) REFERENCES app_user (name) ON DELETE CASCADE
)${tableOptions};
CREATE INDEX ix_console_session_used ON console_session (last_used_ms);

-- The number every replica polls: each change of a switch takes the next one under this row's lock.
CREATE TABLE operator_state_version (
    id      INT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (id)
)${tableOptions};
INSERT INTO operator_state_version (id, version) VALUES (1, 0);

-- One row per switch an operator moved from its default: a monitor switched off, a concrete
-- service taken out of the plans. No row: the monitor runs, the service is in.
CREATE TABLE operator_switch (
    kind       VARCHAR(20) NOT NULL,
    name       VARCHAR(100) NOT NULL,
    changed_by VARCHAR(200) NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (kind, name),
    CONSTRAINT ck_operator_switch_kind CHECK (kind IN ('monitor-off', 'service-out'))
)${tableOptions};
