-- Which replica runs each durable process instance. Every transaction of a replica that writes an
-- instance also writes its row here, in the same transaction, and fails when the row names
-- another replica: a takeover (the optimizer leader's, when a replica's presence expired) moves
-- the rows of the replica that is gone, with its jobs in ODE_JOB, so a replica that was presumed
-- dead and comes back cannot continue an instance taken from it. On Galera the two writes of one
-- row certify against each other; on one server the row's lock orders them.
CREATE TABLE instance_owner (
    instance_id BIGINT NOT NULL,
    replica     VARCHAR(200) NOT NULL,
    writes      BIGINT NOT NULL,
    PRIMARY KEY (instance_id),
    CONSTRAINT ck_instance_owner_replica CHECK (CHAR_LENGTH(replica) > 0)
)${tableOptions};

CREATE INDEX ix_instance_owner_replica ON instance_owner (replica);
