package toolresult

import (
	"regexp"
	"strconv"
	"strings"
)

// A StackTrace is a stack trace found in a tool's error output.
type StackTrace struct {
	// Language is "go", "python", "java" or "javascript".
	Language string
	// Type is the error type: "ValueError", "java.lang.IllegalStateException",
	// "TypeError", "runtime error" or "panic" for Go.
	Type string
	// Line is the trace's first meaningful line: the error and its
	// message ("ValueError: invalid literal for int() with base 10: 'x'").
	Line string
	// Frames counts the stack frames left out.
	Frames int
}

var (
	javaException = regexp.MustCompile(`^(?:Exception in thread "[^"]*" )?((?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:Exception|Error|Throwable|Fault)[\w$]*)(?::\s*(.*))?$`)
	javaFrame     = regexp.MustCompile(`^\s+(?:at [\w$.<>/\[\]-]+\(.*\)|\.\.\. \d+ (?:more|common frames omitted))\s*$`)
	jsError       = regexp.MustCompile(`^(?:Uncaught )?([A-Z][\w$]*(?:Error|Exception))(?:\s*\[[\w-]+\])?(?::\s*(.*))?$`)
	jsFrame       = regexp.MustCompile(`^\s+at .+`)
	pyException   = regexp.MustCompile(`^((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt|Iteration|Fault)?)(?::\s*(.*))?$`)
	goGoroutine   = regexp.MustCompile(`^goroutine \d+ \[[^\]]+\]:\s*$`)
)

// ReduceTrace finds a Go, Python, Java or JavaScript stack trace in text
// and returns text with the trace replaced by its first meaningful line,
// and what it found. ok is false, and text is returned as is, when text
// holds no trace.
func ReduceTrace(text string) (reduced string, tr StackTrace, ok bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		var start, end int
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "Traceback (most recent call last):"):
			start, end, tr, ok = pythonTrace(lines, i)
		case goGoroutine.MatchString(l):
			start, end, tr, ok = goTrace(lines, i)
		case javaException.MatchString(strings.TrimSpace(l)) && i+1 < len(lines) && javaFrame.MatchString(strings.TrimRight(lines[i+1], "\r")):
			start, end, tr, ok = javaTrace(lines, i)
		case jsError.MatchString(strings.TrimSpace(l)) && i+1 < len(lines) && jsFrame.MatchString(lines[i+1]):
			start, end, tr, ok = jsTrace(lines, i)
		}
		if !ok {
			continue
		}
		out := make([]string, 0, start+1+len(lines)-end)
		for _, b := range lines[:start] {
			if strings.TrimSpace(b) != "" {
				out = append(out, strings.TrimSpace(b))
			}
		}
		out = append(out, tr.Line)
		for _, a := range lines[end:] {
			if strings.TrimSpace(a) != "" {
				out = append(out, strings.TrimSpace(a))
			}
		}
		return strings.Join(out, "\n"), tr, true
	}
	return text, StackTrace{}, false
}

// pythonTrace reads a traceback starting at lines[i]: frames, then the
// exception line; chained tracebacks ("During handling of the above
// exception ...") are read to the last exception, the one raised.
func pythonTrace(lines []string, i int) (start, end int, tr StackTrace, ok bool) {
	tr.Language = "python"
	j := i + 1
	for j < len(lines) {
		l := strings.TrimRight(lines[j], "\r")
		switch {
		case strings.HasPrefix(l, "  File ") || strings.HasPrefix(l, "    ") || strings.TrimSpace(l) == "^" || strings.Trim(strings.TrimSpace(l), "^~") == "":
			if strings.HasPrefix(l, "  File ") {
				tr.Frames++
			}
			j++
			continue
		}
		m := pyException.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			return 0, 0, StackTrace{}, false
		}
		tr.Type = m[1]
		tr.Line = strings.TrimSpace(l)
		j++
		// A chained traceback follows after a blank line and a sentence.
		k := j
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k+2 < len(lines) && (strings.HasPrefix(lines[k], "During handling of the above exception") || strings.HasPrefix(lines[k], "The above exception was the direct cause")) {
			k++
			for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
				k++
			}
			if k < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[k]), "Traceback (most recent call last):") {
				j = k + 1
				continue
			}
		}
		return i, j, tr, tr.Frames > 0 || tr.Type != ""
	}
	return 0, 0, StackTrace{}, false
}

// goTrace reads a goroutine dump at lines[i], with the panic line before
// it when there is one.
func goTrace(lines []string, i int) (start, end int, tr StackTrace, ok bool) {
	tr.Language = "go"
	start = i
	// The panic or fatal error, and a blank line, come first.
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		l := strings.TrimSpace(lines[k])
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			start = k
			tr.Line = l
			break
		}
	}
	j := i + 1
	for j < len(lines) {
		l := strings.TrimRight(lines[j], "\r")
		switch {
		case strings.HasPrefix(l, "\t"):
			j++
		case l == "":
			// Another goroutine may follow.
			if j+1 < len(lines) && goGoroutine.MatchString(strings.TrimRight(lines[j+1], "\r")) {
				j += 2
				continue
			}
			return start, j, goType(tr), true
		case strings.HasSuffix(l, ")") || strings.HasPrefix(l, "created by ") || strings.Contains(l, "...additional frames elided..."):
			tr.Frames++
			j++
		case strings.HasPrefix(l, "exit status "):
			j++
		default:
			return start, j, goType(tr), true
		}
	}
	return start, j, goType(tr), true
}

func goType(tr StackTrace) StackTrace {
	switch {
	case tr.Line == "":
		tr.Line = "goroutine stack dump"
		tr.Type = "goroutine dump"
	case strings.HasPrefix(tr.Line, "fatal error: "):
		tr.Type = "fatal error"
	case strings.HasPrefix(tr.Line, "panic: runtime error: "):
		tr.Type = "runtime error"
	default:
		tr.Type = "panic"
	}
	return tr
}

// javaTrace reads an exception line at lines[i] and its frames, with
// every "Caused by:" section; the root cause is added to the line.
func javaTrace(lines []string, i int) (start, end int, tr StackTrace, ok bool) {
	tr.Language = "java"
	first := strings.TrimSpace(lines[i])
	m := javaException.FindStringSubmatch(first)
	tr.Type = m[1]
	tr.Line = strings.TrimSpace(strings.TrimPrefix(first, prefixBefore(first, m[1])))
	var cause string
	j := i + 1
	for j < len(lines) {
		l := strings.TrimSpace(strings.TrimRight(lines[j], "\r"))
		switch {
		case javaFrame.MatchString(strings.TrimRight(lines[j], "\r")):
			if strings.HasPrefix(l, "at ") {
				tr.Frames++
			}
		case strings.HasPrefix(l, "Caused by: "):
			cause = strings.TrimPrefix(l, "Caused by: ")
		case strings.HasPrefix(l, "Suppressed: "):
		default:
			return i, j, javaCause(tr, cause), true
		}
		j++
	}
	return i, j, javaCause(tr, cause), true
}

func javaCause(tr StackTrace, cause string) StackTrace {
	if cause != "" {
		tr.Line += " (caused by " + clipRunes(cause, 300) + ")"
	}
	return tr
}

// prefixBefore returns what precedes sub in s ("Exception in thread ...").
func prefixBefore(s, sub string) string {
	if i := strings.Index(s, sub); i > 0 {
		return s[:i]
	}
	return ""
}

// jsTrace reads a JavaScript error line at lines[i] and its "at" frames.
// Node prints the failing source line and a caret before the error: they
// are left out too.
func jsTrace(lines []string, i int) (start, end int, tr StackTrace, ok bool) {
	tr.Language = "javascript"
	l := strings.TrimSpace(lines[i])
	m := jsError.FindStringSubmatch(l)
	tr.Type = m[1]
	tr.Line = strings.TrimPrefix(l, "Uncaught ")
	start = i
	// file.js:12 / source line / caret / blank, printed by Node.
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		t := strings.TrimSpace(lines[k])
		if t != "" && strings.Trim(t, "^ ") == "" {
			start = k - 1
			if start > 0 && nodeLocation(lines[start-1]) {
				start--
			}
			break
		}
	}
	start = max(start, 0)
	j := i + 1
	for j < len(lines) && jsFrame.MatchString(lines[j]) {
		tr.Frames++
		j++
	}
	return start, j, tr, true
}

// nodeLocation reports whether l is "path:line", as Node prints before
// the failing source line.
func nodeLocation(l string) bool {
	l = strings.TrimSpace(l)
	i := strings.LastIndexByte(l, ':')
	if i <= 0 {
		return false
	}
	_, err := strconv.Atoi(l[i+1:])
	return err == nil
}
