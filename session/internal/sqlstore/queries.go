package sqlstore

// queries are the store's statements, bound for the dialect once.
type queries struct {
	sessionVersion    string
	insertSession     string
	selectSession     string
	lockForUpdate     string
	lockForShare      string
	updateSession     string
	insertMessages    string // followed by values(...)
	selectMessages    string
	insertStep        string
	selectState       string
	selectSteps       string
	callStates        string // followed by "(?, ...)"
	insertCalls       string // followed by values(...)
	finishCall        string
	selectCalls       string
	selectAllCalls    string
	refTaken          string
	dropResult        string
	insertResult      string
	selectResult      string
	selectResultInfos string
	listSessions      string
	listSessionsAfter string
	deleteSession     []string
	pruneAge          string
	pruneSize         string
}

const (
	sessionCols = "id, title, agent, status, version, step, messages, created, updated, model, base_url, model_options"
	callCols    = "call_id, attempt, step, tool, idempotency, idempotency_key, arguments, started, finished, status, result, duration"
)

func newQueries(bind func(string) string, d *Dialect) queries {
	q := queries{
		sessionVersion:    bind("SELECT version FROM toolwire_sessions WHERE id = ?"),
		insertSession:     bind("INSERT INTO toolwire_sessions (" + sessionCols + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
		selectSession:     bind("SELECT " + sessionCols + " FROM toolwire_sessions WHERE id = ?"),
		lockForUpdate:     bind("SELECT " + sessionCols + " FROM toolwire_sessions WHERE id = ?" + d.ForUpdate),
		lockForShare:      bind("SELECT " + sessionCols + " FROM toolwire_sessions WHERE id = ?" + d.ForShare),
		updateSession:     bind("UPDATE toolwire_sessions SET version = ?, step = ?, messages = ?, status = ?, updated = ? WHERE id = ?"),
		selectMessages:    bind("SELECT seq, data FROM toolwire_messages WHERE session_id = ? ORDER BY seq"),
		insertStep:        bind("INSERT INTO toolwire_steps (session_id, number, version, status, first_seq, messages, state, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
		selectState:       bind("SELECT state FROM toolwire_steps WHERE session_id = ? AND number = ?"),
		selectSteps:       bind("SELECT number, version, status, first_seq, messages, state, created FROM toolwire_steps WHERE session_id = ? ORDER BY number"),
		finishCall:        bind("UPDATE toolwire_calls SET finished = ?, status = ?, result = ?, duration = ? WHERE session_id = ? AND call_id = ? AND attempt = ? AND finished IS NULL"),
		selectCalls:       bind("SELECT " + callCols + " FROM toolwire_calls WHERE session_id = ? AND step >= ? ORDER BY ord"),
		selectAllCalls:    bind("SELECT " + callCols + " FROM toolwire_calls WHERE session_id = ? ORDER BY ord"),
		refTaken:          bind("SELECT 1 FROM toolwire_results WHERE ref = ?"),
		dropResult:        bind("DELETE FROM toolwire_results WHERE ref = ? AND session_id = ?"),
		insertResult:      bind("INSERT INTO toolwire_results (ref, session_id, tool, kind, media_type, data, rules, size, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
		selectResult:      bind("SELECT tool, kind, media_type, data, rules, size, created FROM toolwire_results WHERE ref = ? AND session_id = ?"),
		selectResultInfos: bind("SELECT ref, tool, kind, media_type, rules, size, length(data), created FROM toolwire_results WHERE session_id = ? ORDER BY ord"),
		listSessions:      bind("SELECT " + sessionCols + " FROM toolwire_sessions ORDER BY created DESC, id DESC LIMIT ?"),
		listSessionsAfter: bind("SELECT " + sessionCols + " FROM toolwire_sessions WHERE created < ? OR (created = ? AND id < ?) ORDER BY created DESC, id DESC LIMIT ?"),
		pruneAge:          bind("DELETE FROM toolwire_results WHERE created < ? RETURNING size"),
		pruneSize: bind("DELETE FROM toolwire_results WHERE ord IN (SELECT ord FROM " +
			"(SELECT ord, SUM(size) OVER (ORDER BY ord DESC) AS kept FROM toolwire_results) AS r WHERE kept > ?) RETURNING size"),
	}
	// Bound when the placeholders that follow are known.
	q.insertMessages = "INSERT INTO toolwire_messages (session_id, seq, step, data) VALUES "
	q.callStates = "SELECT call_id, attempt, finished IS NOT NULL FROM toolwire_calls WHERE session_id = ? AND call_id IN "
	q.insertCalls = "INSERT INTO toolwire_calls (session_id, " + callCols + ") VALUES "
	for _, t := range []string{"toolwire_results", "toolwire_calls", "toolwire_steps", "toolwire_messages", "toolwire_sessions"} {
		col := "session_id"
		if t == "toolwire_sessions" {
			col = "id"
		}
		q.deleteSession = append(q.deleteSession, bind("DELETE FROM "+t+" WHERE "+col+" = ?"))
	}
	return q
}
