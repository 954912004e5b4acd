// Package benchcpu reports benchmarks in CPU time as well as wall-clock
// time: on a shared, loaded machine the CPU time a process uses moves
// far less than the time it waits.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Time returns the CPU time the process has used, in all its threads
// (the garbage collector's included).
func Time() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Loop runs f b.N times and reports cpu-ms/op; with bytes set it also
// reports cpu-MB/s, the throughput in CPU time.
func Loop(b *testing.B, bytes int, f func()) {
	start := Time()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	d := float64(Time()-start) / float64(n)
	b.ReportMetric(d/1e6, "cpu-ms/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/1e6/(d/1e9), "cpu-MB/s")
	}
}
