-- Clustered replicas (issue 13): the optimizer leader's lease, and each replica's window of
-- observations that the leader merges. Times are epoch milliseconds of the writer's clock.

-- One row per lease name ('optimizer'). A replica holds it while expires_ms is in the future;
-- it renews by moving expires_ms on, and another replica takes it (term + 1) once it is past.
CREATE TABLE leader_lease (
    name       VARCHAR(100) NOT NULL,
    holder     VARCHAR(200) NOT NULL,
    term       BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    renewed_ms BIGINT NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT ck_leader_lease_name CHECK (CHAR_LENGTH(name) > 0),
    CONSTRAINT ck_leader_lease_term CHECK (term >= 0)
)${tableOptions};

-- Per replica and concrete service: the QoS Monitor's current window, written each monitor
-- period. No foreign key: a replica may report a service another replica has just removed;
-- the leader ignores rows of services it does not know.
CREATE TABLE replica_window (
    replica       VARCHAR(200) NOT NULL,
    service       VARCHAR(100) NOT NULL,
    successes     BIGINT NOT NULL,
    failures      BIGINT NOT NULL,
    response_time DOUBLE PRECISION NOT NULL,
    at_ms         BIGINT NOT NULL,
    PRIMARY KEY (replica, service),
    CONSTRAINT ck_replica_window_successes CHECK (successes >= 0),
    CONSTRAINT ck_replica_window_failures CHECK (failures >= 0),
    CONSTRAINT ck_replica_window_response_time CHECK (response_time >= 0)
)${tableOptions};
