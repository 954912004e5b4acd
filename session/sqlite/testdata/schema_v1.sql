-- The first schema of the session store. Times are microseconds since the
-- Unix epoch, UTC; durations are nanoseconds. Messages and results are in
-- the persistence format of llm.Conversation, one message per row.

CREATE TABLE toolwire_sessions (
	id       TEXT PRIMARY KEY,
	title    TEXT NOT NULL,
	agent    TEXT NOT NULL,
	status   TEXT NOT NULL,
	version  INTEGER NOT NULL,
	step     INTEGER NOT NULL,
	messages INTEGER NOT NULL,
	created  INTEGER NOT NULL,
	updated  INTEGER NOT NULL
);
CREATE INDEX toolwire_sessions_created ON toolwire_sessions (created DESC, id DESC);

CREATE TABLE toolwire_messages (
	session_id TEXT NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	step       INTEGER NOT NULL,
	data       BLOB NOT NULL,
	PRIMARY KEY (session_id, seq)
);

CREATE TABLE toolwire_steps (
	session_id TEXT NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	number     INTEGER NOT NULL,
	version    INTEGER NOT NULL,
	status     TEXT NOT NULL,
	first_seq  INTEGER NOT NULL,
	messages   INTEGER NOT NULL,
	state      BLOB,
	created    INTEGER NOT NULL,
	PRIMARY KEY (session_id, number)
);

CREATE TABLE toolwire_calls (
	ord             INTEGER PRIMARY KEY,
	session_id      TEXT NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	call_id         TEXT NOT NULL,
	attempt         INTEGER NOT NULL,
	step            INTEGER NOT NULL,
	tool            TEXT NOT NULL,
	idempotency     TEXT NOT NULL,
	idempotency_key TEXT NOT NULL,
	arguments       BLOB,
	started         INTEGER NOT NULL,
	finished        INTEGER,
	status          TEXT,
	result          BLOB,
	duration        INTEGER,
	UNIQUE (session_id, call_id, attempt)
);
CREATE INDEX toolwire_calls_step ON toolwire_calls (session_id, step);

CREATE TABLE toolwire_results (
	ord        INTEGER PRIMARY KEY,
	ref        TEXT NOT NULL UNIQUE,
	session_id TEXT NOT NULL REFERENCES toolwire_sessions (id) ON DELETE CASCADE,
	tool       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	media_type TEXT NOT NULL,
	data       BLOB NOT NULL,
	rules      BLOB,
	size       INTEGER NOT NULL,
	created    INTEGER NOT NULL
);
CREATE INDEX toolwire_results_session ON toolwire_results (session_id);
CREATE INDEX toolwire_results_created ON toolwire_results (created);
