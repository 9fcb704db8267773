-- Decisions are the leader's (issue 21): a replica that must re-plan (an SLA or a service change
-- it has just stored) and does not hold the optimizer lease asks the leader here; the leader
-- solves, publishes, and writes the plan version that serves the request into its row.

CREATE TABLE replan_request (
    id           VARCHAR(40) NOT NULL,
    reason       VARCHAR(2000) NOT NULL,
    without_list VARCHAR(2000) NOT NULL,
    requested_by VARCHAR(200) NOT NULL,
    requested_ms BIGINT NOT NULL,
    plan_version BIGINT,
    answer       VARCHAR(2000),
    PRIMARY KEY (id)
)${tableOptions};
CREATE INDEX ix_replan_request_pending ON replan_request (plan_version, requested_ms);
