-- Which replicas are alive (issue 23): each replica that polices its users' agreed rates
-- writes its row about once a second and counts the rows seen recently, so that it polices
-- rate / (live replicas). Times are epoch milliseconds of the writer's clock. A replica that
-- stops removes its row; one killed is no longer counted once its row is older than the ttl.
CREATE TABLE replica_presence (
    replica VARCHAR(200) NOT NULL,
    seen_ms BIGINT NOT NULL,
    PRIMARY KEY (replica),
    CONSTRAINT ck_replica_presence_replica CHECK (CHAR_LENGTH(replica) > 0)
)${tableOptions};
