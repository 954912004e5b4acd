-- The model a session's run talks to, so that a resume talks to the same
-- one: its spec ("openai:gpt-4o"), its base URL ('' for the provider's
-- default) and its options, a JSON object (NULL for none). Never a key.

ALTER TABLE toolwire_sessions
	ADD COLUMN model text NOT NULL DEFAULT '',
	ADD COLUMN base_url text NOT NULL DEFAULT '',
	ADD COLUMN model_options bytea;
