-- The first schema of the session store. Durations are nanoseconds.
-- Messages and results are in the persistence format of
-- llm.Conversation, one message per row, kept as bytes (not jsonb, which
-- would reorder keys and drop duplicates: the stored bytes are exactly the
-- ones written).

CREATE TABLE toolwire_sessions (
	id       text PRIMARY KEY,
	title    text NOT NULL,
	agent    text NOT NULL,
	status   text NOT NULL,
	version  bigint NOT NULL,
	step     bigint NOT NULL,
	messages bigint NOT NULL,
	created  timestamptz NOT NULL,
	updated  timestamptz NOT NULL
);
CREATE INDEX toolwire_sessions_created ON toolwire_sessions (created DESC, id DESC);

CREATE TABLE toolwire_messages (
	session_id text NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	seq        bigint NOT NULL,
	step       bigint NOT NULL,
	data       bytea NOT NULL,
	PRIMARY KEY (session_id, seq)
);

CREATE TABLE toolwire_steps (
	session_id text NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	number     bigint NOT NULL,
	version    bigint NOT NULL,
	status     text NOT NULL,
	first_seq  bigint NOT NULL,
	messages   bigint NOT NULL,
	state      bytea,
	created    timestamptz NOT NULL,
	PRIMARY KEY (session_id, number)
);

CREATE TABLE toolwire_calls (
	ord             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id      text NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	call_id         text NOT NULL,
	attempt         bigint NOT NULL,
	step            bigint NOT NULL,
	tool            text NOT NULL,
	idempotency     text NOT NULL,
	idempotency_key text NOT NULL,
	arguments       bytea,
	started         timestamptz NOT NULL,
	finished        timestamptz,
	status          text,
	result          bytea,
	duration        bigint,
	UNIQUE (session_id, call_id, attempt)
);
CREATE INDEX toolwire_calls_step ON toolwire_calls (session_id, step);

CREATE TABLE toolwire_results (
	ord        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	ref        text NOT NULL UNIQUE,
	session_id text NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	tool       text NOT NULL,
	kind       text NOT NULL,
	media_type text NOT NULL,
	data       bytea NOT NULL,
	rules      bytea,
	size       bigint NOT NULL,
	created    timestamptz NOT NULL
);
CREATE INDEX toolwire_results_session ON toolwire_results (session_id);
CREATE INDEX toolwire_results_created ON toolwire_results (created);
