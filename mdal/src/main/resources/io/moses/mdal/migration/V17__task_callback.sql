-- An asynchronous task: its one-way request is answered later by the provider's call of
-- callback_operation (an operation of the process's own role on the task's partner link). Its
-- response time is the time to that callback; none within callback_timeout seconds is a
-- failure (docs/model.md, "Asynchronous tasks"). Both null: the task answers in its reply.

ALTER TABLE task ADD COLUMN callback_operation VARCHAR(255);
ALTER TABLE task ADD COLUMN callback_timeout DOUBLE PRECISION;
