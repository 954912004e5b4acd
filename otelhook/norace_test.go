//go:build !race

package otelhook_test

const raceEnabled = false
