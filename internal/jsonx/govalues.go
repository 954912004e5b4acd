package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Number is a JSON number as written, the number of the trees [DecodeAny]
// builds. It is encoding/json's Number, one of the two names the module
// takes from encoding/json: the JSON Schema validator
// (santhosh-tekuri/jsonschema) compares numbers exactly only when they
// come as this type, and users' Go types may hold it. No encoding/json
// code runs for it: [Marshal] and [Unmarshal] read and write it themselves.
type Number = json.Number

// RawMessage is encoding/json's RawMessage, the other name taken from it:
// users' Go types hold it, and the tool layer knows it as verbatim JSON.
// Its methods are all that runs of it.
type RawMessage = json.RawMessage

// goValues are the options of [Marshal] and [Unmarshal]: encoding/json's
// rules for Go values (sorted map keys, nil slices and maps as null,
// omitempty, the string option, MarshalJSON and MarshalText methods,
// names matched without regard to case), no HTML escaping, and a [Number]
// read and written as the number it holds.
var goValues = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsontext.EscapeForHTML(false),
	jsonv2.WithMarshalers(jsonv2.MarshalToFunc(writeNumber)),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(readNumber)),
)

// Marshal encodes v, a Go value, compactly as encoding/json encodes it
// with HTML escaping off: the layer for values of the program's own types
// (tool results, schema defaults), whose JSON names and omitempty rules
// were written for encoding/json. One difference: invalid UTF-8 in a
// string becomes U+FFFD written as itself, not as the escape \ufffd.
func Marshal(v any) (jsontext.Value, error) {
	return jsonv2.Marshal(v, goValues)
}

// MarshalReplacing is [Marshal] that also reports whether it replaced
// invalid UTF-8.
func MarshalReplacing(v any) (out jsontext.Value, replaced bool, err error) {
	out, err = jsonv2.Marshal(v, goValues, jsontext.AllowInvalidUTF8(false))
	if err == nil {
		return out, false, nil
	}
	// Invalid UTF-8 is the one thing Marshal allows that the first
	// attempt did not: if Marshal succeeds, that was the error.
	out, err = Marshal(v)
	return out, err == nil, err
}

// Unmarshal decodes data into v, a pointer to a Go value, by the rules of
// [Marshal]; data must be strict JSON (no duplicate names, valid UTF-8).
func Unmarshal(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, goValues, jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
}

func writeNumber(enc *jsontext.Encoder, n Number) error {
	if n == "" {
		n = "0" // as encoding/json writes the zero Number
	}
	v := jsontext.Value(n)
	if v.Kind() != '0' || !v.IsValid() {
		return fmt.Errorf("invalid number literal %q", string(n))
	}
	return enc.WriteValue(v)
}

func readNumber(dec *jsontext.Decoder, n *Number) error {
	if dec.PeekKind() != '0' {
		return errors.ErrUnsupported // the default rules take it
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*n = Number(v)
	return nil
}

// MarshalIndent is [Marshal] written for people: each member and element
// on its own line, indented by indent, with a final newline, as
// encoding/json's Encoder writes it with SetIndent("", indent).
func MarshalIndent(v any, indent string) ([]byte, error) {
	b, err := jsonv2.Marshal(v, goValues, jsontext.Multiline(true), jsontext.WithIndent(indent))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
