-- The user whose message started a conversation's instance: only that user's messages reach it
-- (or start a competing instance for its correlation value). Null for an anonymous starter.
ALTER TABLE conversation_owner ADD COLUMN user_name VARCHAR(100) NULL;
