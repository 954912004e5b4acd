// Package provider holds what the provider codecs (provider/anthropic,
// provider/gemini, provider/openai) say in common to their callers: the
// [Warning] an encoder gives for what it could not carry over exactly.
//
// It is a package of its own, below the codecs, so that a caller that
// converts between dialects (provider/wire, cmd/toolwire) handles one
// warning type whichever codec wrote it, and so that the rules package
// (transcript) keeps its own vocabulary of violations.
package provider

// A Warning says what an encoder could not carry over exactly into the
// body it wrote (a part the dialect cannot hold, an id it rewrote, ...),
// or what a decoder read that the llm form does not hold, with the dotted
// path of the value in that body ("messages.3.content.0"); Path is "" for
// the body as a whole.
type Warning struct {
	Path    string
	Message string
}

// String returns "PATH: MESSAGE", or the message alone when there is no
// path.
func (w Warning) String() string {
	if w.Path == "" {
		return w.Message
	}
	return w.Path + ": " + w.Message
}
