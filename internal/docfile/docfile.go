// Package docfile reads the configuration files people write by hand —
// agent definitions, replays of model turns — from YAML or JSON into one
// tree whose every node knows its line and column, and decodes that tree
// strictly: an unknown key, a duplicate key or a value of the wrong kind
// is an error that names the file, the line, the column and the key, and
// says what was wanted. The same content gets the same verdict in either
// format.
package docfile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolwire/toolwire/internal/jsontree"
	"github.com/toolwire/toolwire/internal/names"
	"github.com/toolwire/toolwire/llm"
)

// Kind is a node's type: JSON's, whichever format the file is in.
type Kind = jsontree.Kind

// The kinds of node; a YAML sequence is a List, a mapping a Map.
const (
	Null   = jsontree.Null
	Bool   = jsontree.Bool
	Number = jsontree.Number
	String = jsontree.String
	List   = jsontree.Array
	Map    = jsontree.Object
)

// Phrase names a kind as the files' authors do: YAML's words.
func Phrase(k Kind) string {
	switch k {
	case Null:
		return "nothing (null)"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case List:
		return "a list"
	case Map:
		return "a mapping"
	}
	return "nothing"
}

// A Node is one value of a document.
type Node struct {
	Kind      Kind
	Line, Col int
	// Text is a scalar's value: the string, the number as written, "true"
	// or "false".
	Text string
	// Fields are a mapping's members, in order; Items a list's elements.
	Fields []Field
	Items  []*Node
	file   string
	path   string
}

// A Field is one member of a mapping.
type Field struct {
	Key   string
	Value *Node
}

// An Error is a problem at a place in a file.
type Error struct {
	File      string
	Line, Col int
	// Path is the dotted path of the value, "" for the whole document.
	Path string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxNodes bounds a document, so that a hostile file (YAML aliases that
// expand exponentially) cannot exhaust memory.
const maxNodes = 100_000

// Parse reads data, named file in errors: JSON when it starts with { or
// [, YAML otherwise. The root must be a mapping.
func Parse(file string, data []byte) (*Node, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	var root *Node
	var err error
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		root, err = parseJSON(file, data)
	} else {
		root, err = parseYAML(file, data)
	}
	if err != nil {
		return nil, err
	}
	if root.Kind != Map {
		return nil, root.Errorf("the file must hold a mapping of keys to values, not %s", Phrase(root.Kind))
	}
	return root, nil
}

// Errorf returns an error at n.
func (n *Node) Errorf(format string, args ...any) *Error {
	return &Error{File: n.file, Line: n.Line, Col: n.Col, Path: n.path, Msg: fmt.Sprintf(format, args...)}
}

// Path returns n's dotted path ("tools.2.spec"), "" for the root.
func (n *Node) Path() string { return n.path }

func parseJSON(file string, data []byte) (*Node, error) {
	t, err := jsontree.Parse(data, nil)
	if err != nil {
		var se *jsontree.SyntaxError
		if errors.As(err, &se) {
			return nil, &Error{File: file, Line: se.Line, Col: se.Column, Msg: "not valid JSON: " + se.Msg}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	var conv func(n jsontree.Node, path string) (*Node, error)
	conv = func(n jsontree.Node, path string) (*Node, error) {
		line, col := position(data, t.Offset(n))
		out := &Node{Line: line, Col: col, file: file, path: path}
		switch t.Kind(n) {
		case jsontree.Null:
			out.Kind = Null
		case jsontree.Bool:
			out.Kind, out.Text = Bool, strconv.FormatBool(t.IsTrue(n))
		case jsontree.Number:
			out.Kind, out.Text = Number, string(t.Raw(n))
		case jsontree.String:
			out.Kind, out.Text = String, t.Str(n)
		case jsontree.Array:
			out.Kind = List
			i := 0
			for c := t.First(n); c != jsontree.None; c = t.Next(c) {
				item, err := conv(c, join(path, strconv.Itoa(i)))
				if err != nil {
					return nil, err
				}
				out.Items = append(out.Items, item)
				i++
			}
		case jsontree.Object:
			out.Kind = Map
			seen := map[string]bool{}
			for c := t.First(n); c != jsontree.None; c = t.Next(c) {
				k := t.Key(c)
				if seen[k] {
					kl, kc := position(data, t.KeyOffset(c))
					return nil, &Error{File: file, Line: kl, Col: kc, Path: path, Msg: fmt.Sprintf("the key %q appears twice", k)}
				}
				seen[k] = true
				v, err := conv(c, join(path, k))
				if err != nil {
					return nil, err
				}
				out.Fields = append(out.Fields, Field{Key: k, Value: v})
			}
		}
		return out, nil
	}
	return conv(t.Root(), "")
}

// position returns the line and column, from 1, of byte off of src.
func position(src []byte, off int) (int, int) {
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func parseYAML(file string, data []byte) (*Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "the file is empty"}
	}
	count := 0
	var conv func(y *yaml.Node, path string, depth int) (*Node, error)
	conv = func(y *yaml.Node, path string, depth int) (*Node, error) {
		if count++; count > maxNodes || depth > 200 {
			return nil, &Error{File: file, Line: y.Line, Col: y.Column, Path: path, Msg: "the document is too large or too deeply nested (aliases expanding?)"}
		}
		out := &Node{Line: y.Line, Col: y.Column, file: file, path: path}
		switch y.Kind {
		case yaml.DocumentNode:
			if len(y.Content) == 0 {
				return nil, &Error{File: file, Msg: "the file is empty"}
			}
			return conv(y.Content[0], path, depth+1)
		case yaml.AliasNode:
			if y.Alias == nil {
				return nil, out.Errorf("an alias to nothing")
			}
			a, err := conv(y.Alias, path, depth+1)
			if err != nil {
				return nil, err
			}
			a.Line, a.Col = y.Line, y.Column
			return a, nil
		case yaml.ScalarNode:
			switch y.Tag {
			case "!!null":
				out.Kind = Null
			case "!!bool":
				b, err := strconv.ParseBool(strings.ToLower(y.Value))
				if err != nil {
					return nil, out.Errorf("%q is not a boolean (write true or false)", y.Value)
				}
				out.Kind, out.Text = Bool, strconv.FormatBool(b)
			case "!!int", "!!float":
				n, ok := jsonNumber(y.Value)
				if !ok {
					return nil, out.Errorf("the number %q cannot be written as JSON (write it in decimal)", y.Value)
				}
				out.Kind, out.Text = Number, n
			default: // !!str, !!timestamp, !!binary: text as written
				out.Kind, out.Text = String, y.Value
			}
		case yaml.SequenceNode:
			out.Kind = List
			for i, c := range y.Content {
				item, err := conv(c, join(path, strconv.Itoa(i)), depth+1)
				if err != nil {
					return nil, err
				}
				out.Items = append(out.Items, item)
			}
		case yaml.MappingNode:
			out.Kind = Map
			seen := map[string]bool{}
			for i := 0; i+1 < len(y.Content); i += 2 {
				k, v := y.Content[i], y.Content[i+1]
				if k.Kind != yaml.ScalarNode {
					return nil, &Error{File: file, Line: k.Line, Col: k.Column, Path: path, Msg: "a key must be plain text, not a list or a mapping"}
				}
				if k.Tag == "!!merge" {
					return nil, &Error{File: file, Line: k.Line, Col: k.Column, Path: path, Msg: "merge keys (<<) are not supported; write the keys out"}
				}
				if seen[k.Value] {
					return nil, &Error{File: file, Line: k.Line, Col: k.Column, Path: path, Msg: fmt.Sprintf("the key %q appears twice", k.Value)}
				}
				seen[k.Value] = true
				val, err := conv(v, join(path, k.Value), depth+1)
				if err != nil {
					return nil, err
				}
				out.Fields = append(out.Fields, Field{Key: k.Value, Value: val})
			}
		default:
			return nil, out.Errorf("unsupported YAML node")
		}
		return out, nil
	}
	return conv(&doc, "", 0)
}

// yamlError turns the parser's error, "yaml: line 3: did not find
// expected key", into an Error at that line.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line, msg = n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return &Error{File: file, Line: line, Col: 1, Msg: "not valid YAML: " + msg}
}

// jsonNumber returns a YAML number as JSON writes it.
func jsonNumber(s string) (string, bool) {
	clean := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(clean, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || f != f || f > 1e308 || f < -1e308 {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// Keys checks that a mapping has only the known keys; an unknown one is
// an error that names the nearest known key.
func (n *Node) Keys(known ...string) error {
	if n.Kind != Map {
		return n.Errorf("want a mapping, got %s", Phrase(n.Kind))
	}
	for _, f := range n.Fields {
		ok := false
		for _, k := range known {
			if f.Key == k {
				ok = true
			}
		}
		if !ok {
			msg := fmt.Sprintf("unknown key %q (known keys: %s)", f.Key, strings.Join(known, ", "))
			if near := nearest(f.Key, known); near != "" {
				msg = fmt.Sprintf("unknown key %q; did you mean %q?", f.Key, near)
			}
			e := f.Value.Errorf("%s", msg)
			e.Path = n.path
			return e
		}
	}
	return nil
}

// Get returns the value of key, nil if the mapping lacks it.
func (n *Node) Get(key string) *Node {
	for _, f := range n.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Str returns a string value; a missing key gives "" unless required.
func (n *Node) Str(key string, required bool) (string, error) {
	v := n.Get(key)
	if v == nil || v.Kind == Null {
		if required {
			return "", n.Errorf("missing %q", key)
		}
		return "", nil
	}
	if v.Kind != String {
		return "", v.Errorf("want a string, got %s", Phrase(v.Kind))
	}
	return v.Text, nil
}

// Int returns an integer value, def when the key is missing.
func (n *Node) Int(key string, def int) (int, error) {
	v := n.Get(key)
	if v == nil || v.Kind == Null {
		return def, nil
	}
	if v.Kind != Number {
		return 0, v.Errorf("want a whole number, got %s", Phrase(v.Kind))
	}
	i, err := strconv.Atoi(v.Text)
	if err != nil {
		return 0, v.Errorf("want a whole number, got %s", v.Text)
	}
	return i, nil
}

// Bool returns a boolean value, false when the key is missing.
func (n *Node) Bool(key string) (bool, error) {
	v := n.Get(key)
	if v == nil || v.Kind == Null {
		return false, nil
	}
	if v.Kind != Bool {
		return false, v.Errorf("want true or false, got %s", Phrase(v.Kind))
	}
	return v.Text == "true", nil
}

// List returns a list value, nil when the key is missing.
func (n *Node) List(key string) ([]*Node, error) {
	v := n.Get(key)
	if v == nil || v.Kind == Null {
		return nil, nil
	}
	if v.Kind != List {
		return nil, v.Errorf("want a list, got %s", Phrase(v.Kind))
	}
	return v.Items, nil
}

// JSON writes n as compact JSON: for values passed through to a JSON
// consumer (a JSON Schema, tool arguments).
func (n *Node) JSON() []byte { return n.appendJSON(nil) }

func (n *Node) appendJSON(dst []byte) []byte {
	switch n.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool, Number:
		return append(dst, n.Text...)
	case String:
		dst, _ = llm.AppendJSONString(dst, n.Text)
		return dst
	case List:
		dst = append(dst, '[')
		for i, it := range n.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = it.appendJSON(dst)
		}
		return append(dst, ']')
	case Map:
		dst = append(dst, '{')
		for i, f := range n.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = llm.AppendJSONString(dst, f.Key)
			dst = append(dst, ':')
			dst = f.Value.appendJSON(dst)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// nearest returns the known key nearest to key, or "".
func nearest(key string, known []string) string {
	if near := names.Closest(key, known, 1); len(near) > 0 {
		return near[0]
	}
	return ""
}
