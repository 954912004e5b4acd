package toolresult

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"  // image.DecodeConfig reads GIF dimensions
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
)

// inlineTypes are the image types every dialect that takes images in
// tool results accepts.
var inlineTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// ImageTokens estimates what an image of w×h pixels costs a model:
// about w×h/750 tokens (Anthropic's published rule; OpenAI's tiling
// gives similar figures), at most 1,600, and 1,600 when the size is
// unknown.
func ImageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 1600
	}
	return max(1, min(1600, w*h/750))
}

// sniff names the media type of binary output from its first bytes.
func sniff(b []byte) string {
	t := http.DetectContentType(b)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return t
}

// blob shapes binary output: an image goes inline where the dialect and
// the budget allow, else it is described; other binary is described.
// The bytes are always offloaded, and never written as text.
func (j *job) blob(b Blob) error {
	mt := strings.ToLower(strings.TrimSpace(b.MediaType))
	if mt == "" {
		mt = sniff(b.Data)
	}
	j.offload(Stored{Tool: j.req.Tool, Kind: KindBinary, MediaType: mt, Data: b.Data})
	w, h := 0, 0
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(b.Data)); err == nil {
		w, h = cfg.Width, cfg.Height
	}
	isImage := strings.HasPrefix(mt, "image/")
	env := j.base
	env.Data = rendered(blobData(mt, len(b.Data), w, h))
	inline := isImage && j.req.Images == InlineImages && slices.Contains(inlineTypes, mt) && len(b.Data) <= j.s.cfg.MaxInline
	if inline {
		env.Summary = joinNote(j.summary, "the image follows as an image part")
		env.Meta.Level = LevelFull
		if tokens, _ := j.measure(&env, false); tokens+ImageTokens(w, h) <= j.budget {
			j.env = env
			j.images = []llm.Image{{MediaType: mt, Data: b.Data}}
			j.step("sent the %s image inline", mt)
			j.rep.Kept = 1
			return j.finish(LevelFull)
		}
		j.step("the %s image is too large for the budget: described", mt)
	}
	what := "binary data"
	if isImage {
		what = "an image"
	}
	note := mt + ", " + units.Bytes(len(b.Data))
	if w > 0 {
		note = fmt.Sprintf("%s, %d×%d", note, w, h)
	}
	if env.Meta.Ref != "" {
		note += ", stored as " + env.Meta.Ref
	}
	env.Summary = joinNote(j.summary, what+" that is not shown here: "+note)
	env.Meta.Truncated = true
	if env.Meta.Ref != "" && !isImage {
		env.Suggestion = joinSentences(j.suggest, Options(fmt.Sprintf("call read_result with ref %q to read it as text if it is text", env.Meta.Ref)))
	}
	j.env = env
	j.step("described %s (%s)", what, mt)
	return j.finish(LevelFull)
}

// describeBlob says what binary data is, without its bytes.
func describeBlob(b Blob, ref string) string {
	s := b.MediaType + ", " + units.Bytes(len(b.Data))
	if ref != "" {
		s += ", stored as " + ref
	}
	return s
}

func blobData(mt string, size, w, h int) []byte {
	d := []byte(`{"media_type":`)
	d, _ = jsonx.AppendString(d, mt)
	d = append(d, `,"bytes":`...)
	d = strconv.AppendInt(d, int64(size), 10)
	if w > 0 {
		d = append(d, `,"width":`...)
		d = strconv.AppendInt(d, int64(w), 10)
		d = append(d, `,"height":`...)
		d = strconv.AppendInt(d, int64(h), 10)
	}
	return append(d, '}')
}

// ImageTokensOf estimates what an image part costs a model, from the
// dimensions its data declares ([ImageTokens]); an image given by URL,
// or whose dimensions cannot be read, costs the maximum.
func ImageTokensOf(img llm.Image) int {
	if len(img.Data) == 0 {
		return ImageTokens(0, 0)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return ImageTokens(0, 0)
	}
	return ImageTokens(cfg.Width, cfg.Height)
}
