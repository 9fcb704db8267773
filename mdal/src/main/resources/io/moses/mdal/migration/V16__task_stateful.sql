-- Whether a task's provider keeps conversation state: within one process instance, every call
-- on the stateful tasks of one partner link goes to the provider (endpoint) the first chose
-- (docs/model.md, "Stateful partners"). Default false: a task is bound call by call.

ALTER TABLE task ADD COLUMN stateful BOOLEAN DEFAULT FALSE NOT NULL;
