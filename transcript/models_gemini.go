package transcript

import "strings"

// gemFamily is what the Gemini rules that depend on the model know of it
// (docs/provider-rules.md, "Gemini model families").
type gemFamily uint8

const (
	// gemUnknown: no model, or a name toolwire cannot place (an alias such
	// as gemini-flash-latest). A Gemini body names its model in the URL,
	// so a decoded body has none: the rules below are then warnings.
	gemUnknown gemFamily = iota
	// gemBefore3: Gemini 1.x and 2.x. Thought signatures are not enforced
	// (a 2.5 step replayed without its signature is accepted), and
	// functionResponse.parts is refused.
	gemBefore3
	// gem3: Gemini 3 and later. The first call of every step of the
	// current turn must carry its thought signature; functionResponse.parts
	// is accepted.
	gem3
	// gem3Image: the Gemini 3 image models, which do not enforce thought
	// signatures.
	gem3Image
)

// geminiFamily places a model name: "gemini-2.5-flash",
// "models/gemini-3-pro-preview", a Vertex resource name ending in
// "/models/gemini-3-flash-preview".
func geminiFamily(model string) gemFamily {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	rest, ok := strings.CutPrefix(strings.ToLower(model), "gemini-")
	if !ok {
		return gemUnknown
	}
	major := 0
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' && n < 3 {
		major = major*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n < len(rest) && rest[n] != '.' && rest[n] != '-') {
		return gemUnknown
	}
	switch {
	case major < 3:
		return gemBefore3
	case strings.Contains(rest, "-image"):
		return gem3Image
	}
	return gem3
}
