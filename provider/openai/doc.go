// Package openai converts OpenAI request bodies to toolwire's llm form and
// back: Chat Completions ([DecodeChat], [EncodeChat]) and Responses
// ([DecodeResponses], [EncodeResponses]).
//
// The codecs are pure functions, with no network; [Chat] and [Responses] are
// the clients that implement [llm.Model] over them. The codecs follow
// docs/dialect-mapping.md, the contract shared with the transcript checker,
// so that a violation found on the llm messages points at the right place
// in the body the user gave.
//
// Decoding is strict and exact: every error names the dotted path of the
// offending value, an unknown field or part is never dropped in silence,
// and re-encoding a decoded body is stable after one cycle. What the llm
// form cannot hold (a message "name", an audio part, an item_reference, a
// web_search tool, ...) is listed in the request's Unmodeled notes and kept
// with the element it came with, so that a body re-encoded in the same
// dialect, after transcript.Repair say, loses nothing that was not changed.
//
// Encoding writes compact, deterministic JSON without HTML escaping. Messages
// converted from another dialect come with warnings for whatever the OpenAI
// format cannot express; nothing is dropped without one.
package openai
