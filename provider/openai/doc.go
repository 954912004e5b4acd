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
// offending value, and nothing is dropped. Parts and items the llm form
// does not model (an audio part, a refusal, a web_search_call) are
// llm.Opaque parts; fields it does not model (a message "name", an image
// detail, an item's "status") and the few items it has no place for at all
// (an item_reference, a legacy function message) are listed in the
// request's Unmodeled notes and kept with the element they came with.
//
// Encoding a decoded request writes the body back as it came, compacted:
// what the messages still hold unchanged keeps its JSON byte for byte
// (member order, nulls, a string or an array content, invalid UTF-8), and a
// changed message keeps the fields the llm form does not hold, so that a
// body re-encoded after transcript.Repair loses nothing that was not
// changed. Otherwise encoding writes compact, deterministic JSON without
// HTML escaping. Messages converted from another dialect come with
// warnings for whatever the OpenAI format cannot express; nothing is
// dropped without one.
package openai
