-- Requests above a user's agreed rate (issue 23): a service class may name its own policy,
-- off, reject or best-effort; NULL follows the broker's --over-rate. And an SLA event kind for
-- a user that runs above its agreed rate for longer than a short window (OVER_RATE).
ALTER TABLE service_class ADD COLUMN over_rate VARCHAR(20);
ALTER TABLE service_class ADD CONSTRAINT ck_service_class_over_rate
    CHECK (over_rate IS NULL OR over_rate IN ('off', 'reject', 'best-effort'));

ALTER TABLE sla_event DROP CONSTRAINT ck_sla_event_kind;
ALTER TABLE sla_event ADD CONSTRAINT ck_sla_event_kind CHECK (kind IN ('VIOLATION', 'REJECTION', 'AT_RISK', 'OVER_RATE'));
