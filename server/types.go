package server

import (
	"context"
	"encoding/base64"
	"iter"

	"github.com/toolwire/toolwire"
)

type (
	contextT = context.Context
	iterT    = iter.Seq2[toolwire.Event, error]
)

func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
