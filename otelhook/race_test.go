//go:build race

package otelhook_test

// raceEnabled: the race detector changes allocation counts, so the
// allocation tests skip under -race; .ci/run runs them without it.
const raceEnabled = true
