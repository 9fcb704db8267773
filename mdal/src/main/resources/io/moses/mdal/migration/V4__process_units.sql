-- Process units are the cluster's (issue 21): a deployment unit deployed, redeployed or
-- undeployed through any replica is stored here, and every replica applies it.

-- The one sequence of unit versions: every change of any unit takes the next number under this
-- row's lock (so changes are serialized and numbered in commit order), and it is the one cheap
-- number a replica polls.
CREATE TABLE process_units_version (
    id      INT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (id)
)${tableOptions};
INSERT INTO process_units_version (id, version) VALUES (1, 0);

-- One row per unit name, at the version of its last change. An undeployed unit stays as a
-- tombstone (deleted = TRUE, no bundle) so that replicas that missed the change still see it.
CREATE TABLE process_unit (
    name       VARCHAR(100) NOT NULL,
    version    BIGINT NOT NULL,
    deleted    BOOLEAN NOT NULL,
    bundle     MEDIUMBLOB,
    bytes      BIGINT NOT NULL,
    changed_by VARCHAR(200) NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (name),
    CONSTRAINT uq_process_unit_version UNIQUE (version),
    CONSTRAINT ck_process_unit_name CHECK (CHAR_LENGTH(name) > 0),
    CONSTRAINT ck_process_unit_version CHECK (version > 0),
    CONSTRAINT ck_process_unit_bytes CHECK (bytes >= 0)
)${tableOptions};

-- Per replica and unit: the version the replica has applied, or failed to apply (error set).
-- A replica that stops removes its rows; one killed leaves them until it starts again.
CREATE TABLE process_unit_replica (
    replica    VARCHAR(200) NOT NULL,
    unit       VARCHAR(100) NOT NULL,
    version    BIGINT NOT NULL,
    error      VARCHAR(2000),
    at_ms      BIGINT NOT NULL,
    PRIMARY KEY (replica, unit)
)${tableOptions};
