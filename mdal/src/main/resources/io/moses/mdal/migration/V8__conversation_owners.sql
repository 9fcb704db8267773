-- Conversations across replicas (issue 21): process instances live in the memory of the replica
-- that started them, so each correlation value an instance initiates is registered here with
-- its owner, and a replica that receives a message for it forwards the message to the owner.
-- A row is written when the instance initiates the correlation set and removed when it ends
-- (or when its replica starts again: its instances died with it).
CREATE TABLE conversation_owner (
    key_hash        CHAR(64) NOT NULL,
    process         VARCHAR(400) NOT NULL,
    correlation_key VARCHAR(2000) NOT NULL,
    instance_id     BIGINT NOT NULL,
    replica         VARCHAR(200) NOT NULL,
    address         VARCHAR(400) NOT NULL,
    at_ms           BIGINT NOT NULL,
    PRIMARY KEY (key_hash),
    CONSTRAINT ck_conversation_owner_process CHECK (CHAR_LENGTH(process) > 0),
    CONSTRAINT ck_conversation_owner_replica CHECK (CHAR_LENGTH(replica) > 0)
)${tableOptions};

CREATE INDEX ix_conversation_owner_instance ON conversation_owner (replica, instance_id);
