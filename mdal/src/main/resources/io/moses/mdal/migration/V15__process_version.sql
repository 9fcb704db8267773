-- The files of every version of a durable process, by ODE's process id ({namespace}name-N, N
-- from the digest of the unit's files). Instances of a replaced version finish on it: a replica
-- that starts, or takes over a dead replica's instances, registers again each version that
-- unfinished instances wait for, from its bundle here, whether the unit came from the admin API
-- or from a --deploy directory. A row goes when no instance of its version is left and a newer
-- version of its unit has been kept for longer than the instance retention.
CREATE TABLE process_version (
    process_id VARCHAR(255) NOT NULL,
    unit       VARCHAR(100) NOT NULL,
    bundle     ${blob} NOT NULL,
    stored_ms  BIGINT NOT NULL,
    PRIMARY KEY (process_id),
    CONSTRAINT ck_process_version_unit CHECK (CHAR_LENGTH(unit) > 0)
)${tableOptions};

CREATE INDEX ix_process_version_unit ON process_version (unit);
