// Package servertest holds the tests of the temporal package that need a
// real Temporal server: an embedded one (go.temporal.io/server/temporaltest),
// with workers in this process and in processes of their own, killed
// mid-call. It is a module of its own because the server needs the
// go1.27.3 toolchain and a large build; the temporal module stays on the
// toolwire module's Go.
package servertest
