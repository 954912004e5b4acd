package tool

import "context"

// Progress is what a running tool says of how far it is: an MCP server's
// progress notification, say. Total is 0 when unknown.
type Progress struct {
	Progress float64
	Total    float64
	Message  string
}

type progressKey struct{}

// WithProgress returns a context under which [ReportProgress] calls f,
// with the context of the call that reports. The agent installs one when
// hooks watch its runs; f may be called from several goroutines at once.
func WithProgress(ctx context.Context, f func(ctx context.Context, p Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Watched reports whether progress reported under ctx reaches anyone, so
// that a tool can spare asking for it.
func Watched(ctx context.Context) bool {
	f, _ := ctx.Value(progressKey{}).(func(context.Context, Progress))
	return f != nil
}

// ReportProgress tells whoever watches the call of ctx ([WithProgress])
// how far it is; nothing happens when no one does. ctx should be the
// context the tool's Call was given, which says which call it is
// ([CallInfoFrom]).
func ReportProgress(ctx context.Context, p Progress) {
	if f, _ := ctx.Value(progressKey{}).(func(context.Context, Progress)); f != nil {
		f(ctx, p)
	}
}
