-- A class's violation predicted from its providers' forecasts before it happens, and a
-- prediction that did not come true (docs/model.md, "Forecasts").
ALTER TABLE sla_event DROP CONSTRAINT ck_sla_event_kind;
ALTER TABLE sla_event ADD CONSTRAINT ck_sla_event_kind
    CHECK (kind IN ('VIOLATION', 'REJECTION', 'AT_RISK', 'OVER_RATE', 'PREDICTED_VIOLATION', 'PREDICTION_MISSED'));
