-- Whether a second call of a task is safe (issue 24). A task that is not idempotent (payment,
-- a booking) gets no 1-out-of-n implementation from the optimizer and is never sent twice by
-- the request path; one that is (a search, a forecast) may be retried on another provider.
-- Default false: nothing is assumed safe until the operator says so.

ALTER TABLE task ADD COLUMN idempotent BOOLEAN DEFAULT FALSE NOT NULL;
