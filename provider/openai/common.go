package openai

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// A Field is a top-level field of a request body that the codec does not
// model (model, temperature, tool_choice, ...). Value is its JSON,
// compacted.
type Field struct {
	Key   string
	Value []byte
}

// SystemRole is the role a body uses for system messages: OpenAI accepts
// "system" and, for newer models, "developer". Both decode to
// [llm.RoleSystem]; a request remembers which one to write back.
type SystemRole string

// The two system roles. The zero SystemRole means [RoleSystem].
const (
	RoleSystem    SystemRole = "system"
	RoleDeveloper SystemRole = "developer"
)

func (s SystemRole) wire() string {
	if s == RoleDeveloper {
		return string(RoleDeveloper)
	}
	return string(RoleSystem)
}

// keep carries the wire data that the llm form cannot hold, so that
// re-encoding an unchanged message (or item, or tool) in the same dialect
// loses nothing: an assistant message's "name", an image's "detail", an
// item's "id" and "status", an audio part, a legacy "function" message, a
// web_search tool.
//
// Each decoded wire element is filed under its canonical encoding (what the
// encoder writes for its llm form). The encoder looks every element it
// writes up by the same bytes: on a hit it writes the original element
// (compacted) instead, preceded by any opaque elements that preceded it in
// the body. Elements with the same canonical form are matched in order.
// An element the caller changed no longer matches, and is written from its
// llm form; that is the documented loss, reported when decoding in the
// request's Unmodeled list.
type keep struct {
	entries map[string][]keepEntry
	tail    [][]byte // opaque elements after the last modeled one
}

type keepEntry struct {
	raw    []byte   // the original element, compacted; nil: write the canonical form
	before [][]byte // opaque elements that preceded it
}

// keepBuilder collects decoded elements; build returns nil when nothing
// needs keeping.
type keepBuilder struct {
	elems   []keptElem
	needed  bool
	pending [][]byte
}

type keptElem struct {
	canon  []byte
	raw    []byte
	before [][]byte
}

// opaque records an element that has no llm form at all.
func (k *keepBuilder) opaque(raw []byte) {
	k.pending = append(k.pending, raw)
	k.needed = true
}

// add records a modeled element with its canonical form; raw is nil when
// the canonical form says everything the element said.
func (k *keepBuilder) add(canon, raw []byte) {
	k.elems = append(k.elems, keptElem{canon: canon, raw: raw, before: k.pending})
	k.pending = nil
	if raw != nil {
		k.needed = true
	}
}

func (k *keepBuilder) build() *keep {
	if !k.needed {
		return nil
	}
	kp := &keep{entries: make(map[string][]keepEntry), tail: k.pending}
	// Only canonical forms with something to restore need entries, but all
	// elements sharing such a form must be filed, to keep them in order.
	useful := make(map[string]bool)
	for _, e := range k.elems {
		if e.raw != nil || e.before != nil {
			useful[string(e.canon)] = true
		}
	}
	for _, e := range k.elems {
		if useful[string(e.canon)] {
			kp.entries[string(e.canon)] = append(kp.entries[string(e.canon)], keepEntry{raw: e.raw, before: e.before})
		}
	}
	return kp
}

// arrayWriter writes the elements of a JSON array, consulting a keep.
type arrayWriter struct {
	dst  []byte
	n    int
	kp   *keep
	used map[string]int // entries consumed per canonical form, per encode call
}

func newArrayWriter(dst []byte, kp *keep) *arrayWriter {
	w := &arrayWriter{dst: dst, kp: kp}
	if kp != nil {
		w.used = make(map[string]int)
	}
	return w
}

func (w *arrayWriter) sep() {
	if w.n > 0 {
		w.dst = append(w.dst, ',')
	}
	w.n++
}

// begin starts an element and returns the offset its canonical form starts
// at; the caller appends the canonical form to w.dst and calls done.
func (w *arrayWriter) begin() int {
	w.sep()
	return len(w.dst)
}

// done finishes the element started at start, swapping in the kept
// original when there is one.
func (w *arrayWriter) done(start int) {
	if w.kp == nil {
		return
	}
	canon := w.dst[start:]
	list := w.kp.entries[string(canon)]
	k := w.used[string(canon)]
	if k >= len(list) {
		return
	}
	w.used[string(canon)] = k + 1
	e := list[k]
	if e.raw == nil && e.before == nil {
		return
	}
	canonCopy := append([]byte(nil), canon...)
	w.dst = w.dst[:start]
	for _, b := range e.before {
		w.dst = append(w.dst, b...)
		w.dst = append(w.dst, ',')
		w.n++
	}
	if e.raw != nil {
		w.dst = append(w.dst, e.raw...)
	} else {
		w.dst = append(w.dst, canonCopy...)
	}
}

// finish writes the opaque elements that follow the last modeled one. With
// orphans set it also writes, at the end, the opaque elements whose anchor
// was not written (tools: their order does not matter, losing them would).
func (w *arrayWriter) finish(orphans bool) []byte {
	if w.kp == nil {
		return w.dst
	}
	if orphans {
		// Deterministic order: walk the entries in the order they were
		// decoded is not recorded in the map, so sort by content.
		var lost [][]byte
		for canon, list := range w.kp.entries {
			for _, e := range list[min(w.used[canon], len(list)):] {
				lost = append(lost, e.before...)
			}
		}
		sortBytes(lost)
		for _, b := range lost {
			w.sep()
			w.dst = append(w.dst, b...)
		}
	}
	for _, b := range w.kp.tail {
		w.sep()
		w.dst = append(w.dst, b...)
	}
	return w.dst
}

func sortBytes(s [][]byte) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && bytes.Compare(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

// parseDataURL splits a base64 data URL into its media type and bytes. It
// accepts only URLs that re-encode to the same text, so that an image
// round-trips byte for byte; anything else stays a URL.
func parseDataURL(u string) (mediaType string, data []byte, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", nil, false
	}
	meta, payload, found := strings.Cut(rest, ",")
	if !found {
		return "", nil, false
	}
	mediaType, found = strings.CutSuffix(meta, ";base64")
	if !found || mediaType == "" {
		return "", nil, false
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || base64.StdEncoding.EncodeToString(data) != payload {
		return "", nil, false
	}
	if data == nil {
		data = []byte{}
	}
	return mediaType, data, true
}

// appendImageURL appends the URL form of an image: its URL, or a data URL
// for inline bytes.
func appendImageURL(dst []byte, img llm.Image) []byte {
	if img.Data != nil {
		dst = append(dst, `"data:`...)
		s, _ := llm.AppendJSONString(nil, img.MediaType+";base64,")
		dst = append(dst, s[1:len(s)-1]...)
		dst = base64.StdEncoding.AppendEncode(dst, img.Data)
		return append(dst, '"')
	}
	dst, _ = llm.AppendJSONString(dst, img.URL)
	return dst
}

// imageProblem says why an image cannot be written, or "".
func imageProblem(img llm.Image) string {
	switch {
	case img.Data != nil && img.MediaType == "":
		return "an inline image without a media type cannot be written as a data URL"
	case img.Data == nil && img.URL == "":
		return "an image with neither data nor a URL"
	}
	return ""
}

// resultStatus infers a tool result's status from its text: the status of a
// toolwire envelope, else success. OpenAI formats have no error flag.
func resultStatus(content []llm.Part) llm.Status {
	if text, ok := onlyText(content); ok {
		if st, ok := codec.EnvelopeStatus(text); ok {
			return st
		}
	}
	return llm.StatusSuccess
}

// onlyText joins the content's text parts; ok is false if it holds anything
// else.
func onlyText(content []llm.Part) (string, bool) {
	if len(content) == 1 {
		t, ok := content[0].(llm.Text)
		return t.Text, ok
	}
	var sb strings.Builder
	for _, p := range content {
		t, ok := p.(llm.Text)
		if !ok {
			return "", false
		}
		sb.WriteString(t.Text)
	}
	return sb.String(), true
}

// statusWarning warns when a result's status says more than its content,
// which is all an OpenAI format can carry.
func statusWarning(path string, res llm.ToolResult) *transcript.Warning {
	if res.Status == "" || res.Status == llm.StatusSuccess || resultStatus(res.Content) == res.Status {
		return nil
	}
	return &transcript.Warning{Path: path, Message: fmt.Sprintf(
		"the result of call %q has status %q, which OpenAI cannot mark (no is_error field); only its content tells the model",
		res.CallID, res.Status)}
}

// appendKey appends `,"key":` (or without the comma for the first field).
func appendKey(dst []byte, first *bool, key string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst, _ = llm.AppendJSONString(dst, key)
	return append(dst, ':')
}

// appendTopLevel writes an object's fields: the body's original key order when
// known, the modeled ones through emit. Fields not in the order come after.
func appendTopLevel(dst []byte, order []string, fields []Field, modeled []string, emit func(dst []byte, key string, first *bool) ([]byte, error)) ([]byte, error) {
	isModeled := func(k string) bool {
		for _, m := range modeled {
			if m == k {
				return true
			}
		}
		return false
	}
	for _, f := range fields {
		if isModeled(f.Key) {
			return nil, fmt.Errorf("openai: field %q is modeled by the request type; set it there, not in Fields", f.Key)
		}
	}
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	dst = append(dst, '{')
	first := true
	doneField := make([]bool, len(fields))
	doneModeled := make([]bool, len(modeled))
	var err error
	writeField := func(i int) {
		dst = appendKey(dst, &first, fields[i].Key)
		v, _ := compactJSON(fields[i].Value) // checked by checkFields
		dst = append(dst, v...)
		doneField[i] = true
	}
	writeModeled := func(key string) error {
		for i, m := range modeled {
			if m == key && !doneModeled[i] {
				doneModeled[i] = true
				dst, err = emit(dst, key, &first)
				return err
			}
		}
		return nil
	}
	for _, key := range order {
		if isModeled(key) {
			if err := writeModeled(key); err != nil {
				return nil, err
			}
			continue
		}
		for i, f := range fields {
			if f.Key == key && !doneField[i] {
				writeField(i)
				break
			}
		}
	}
	for i := range fields {
		if !doneField[i] {
			writeField(i)
		}
	}
	for _, m := range modeled {
		if err := writeModeled(m); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// checkFields validates Fields: unique keys, valid JSON values.
func checkFields(fields []Field) error {
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Key] {
			return fmt.Errorf("openai: field %q appears twice in Fields", f.Key)
		}
		seen[f.Key] = true
		if _, err := compactJSON(f.Value); err != nil {
			return fmt.Errorf("openai: field %q: value is not valid JSON: %w", f.Key, err)
		}
	}
	return nil
}

// pathMap translates paths computed from the llm form of a decoded body
// (the way transcript.Layout computes them, per docs/dialect-mapping.md)
// into paths in the body itself. They differ where the body holds elements
// or parts the llm form skips: a legacy function message, an
// item_reference, an input_audio part.
type pathMap struct {
	array string         // "messages" or "input"
	elems []int          // llm-form element index → body index; nil: the same
	parts map[int][]int  // body element index → llm part index → body part index
	keys  map[int]string // body element index → the key holding its parts, when not "content"
}

// bodyPath translates path; see [ChatRequest.BodyPath].
func (m *pathMap) bodyPath(path string) string {
	rest, ok := strings.CutPrefix(path, m.array+".")
	if !ok || (m.elems == nil && m.parts == nil) {
		return path
	}
	num, tail, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 {
		return path
	}
	bi := i
	if m.elems != nil {
		if i >= len(m.elems) {
			return path
		}
		bi = m.elems[i]
	}
	out := m.array + "." + strconv.Itoa(bi)
	if tail == "" {
		return out
	}
	if parts := m.parts[bi]; parts != nil {
		key := "content"
		if k, ok := m.keys[bi]; ok {
			key = k
		}
		if after, ok := strings.CutPrefix(tail, key+"."); ok {
			num, more, hasMore := strings.Cut(after, ".")
			if j, err := strconv.Atoi(num); err == nil && j >= 0 && j < len(parts) {
				tail = key + "." + strconv.Itoa(parts[j])
				if hasMore {
					tail += "." + more
				}
			}
		}
	}
	return out + "." + tail
}

// record notes where the llm form's next element sits in the body; kept
// lists the body part indices of its parts when some were skipped.
func (m *pathMap) record(bodyIndex int, kept []int, key string) {
	m.elems = append(m.elems, bodyIndex)
	if kept != nil {
		if m.parts == nil {
			m.parts = make(map[int][]int)
		}
		m.parts[bodyIndex] = kept
		if key != "content" {
			if m.keys == nil {
				m.keys = make(map[int]string)
			}
			m.keys[bodyIndex] = key
		}
	}
}

// done drops the element table when it is the identity.
func (m *pathMap) done() {
	for i, b := range m.elems {
		if i != b {
			return
		}
	}
	m.elems = nil
}
