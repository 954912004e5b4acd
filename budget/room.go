package budget

import (
	"cmp"
	"fmt"
)

// RoomConfig says how much of a window the results of one turn may take.
// A nil *RoomConfig, or a zero field, means the documented default.
type RoomConfig struct {
	// Reserve is kept free for the model's answer. Default: the model's
	// MaxOutput, at most 8,192 tokens.
	Reserve int
	// Margin is the fraction of what is left that is kept free for error
	// in counting (estimated encodings, message framing). Default 0.2.
	// Use a negative value for no margin.
	Margin float64
	// MaxResult caps the tokens of one turn's results however large the
	// window: a million-token window does not mean a tool should fill it.
	// Default 16,000.
	MaxResult int
}

func (c *RoomConfig) withDefaults(l Limits) RoomConfig {
	var out RoomConfig
	if c != nil {
		out = *c
	}
	out.Reserve = cmp.Or(out.Reserve, min(l.MaxOutput, 8192))
	out.Margin = cmp.Or(out.Margin, 0.2)
	if out.Margin < 0 {
		out.Margin = 0
	}
	out.MaxResult = cmp.Or(out.MaxResult, 16_000)
	return out
}

// Room returns how many tokens the results of the next turn may take in
// a model with limits l whose history already holds history tokens: the
// window, less the history and the output reserve, less the safety
// margin, capped at MaxResult. It is 0 when nothing is left (the history
// must be fitted first, see [Fitter]). Split it between a turn's calls
// with tool's Executor.RunWithin.
func Room(l Limits, history int, cfg *RoomConfig) (int, error) {
	if err := l.Validate(); err != nil {
		return 0, err
	}
	c := cfg.withDefaults(l)
	if c.Reserve < 0 || c.MaxResult < 0 || c.Margin >= 1 || history < 0 {
		return 0, fmt.Errorf("budget: room: reserve %d, max result %d, margin %v or history %d is out of range", c.Reserve, c.MaxResult, c.Margin, history)
	}
	left := l.Window - history - c.Reserve
	if left <= 0 {
		return 0, nil
	}
	left = int(float64(left) * (1 - c.Margin))
	return min(left, c.MaxResult), nil
}
