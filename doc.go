// Package toolwire is the agent loop: an [Agent] asks a model, runs the
// tools it calls, feeds the results back as tool messages, and repeats
// until the model answers — with every call answered exactly once, in call
// order, directly after the assistant message that made it, in a history
// that passes the provider's rules ([transcript.CheckRequest]) before every
// call.
//
// One turn: fit the history into the context window ([budget.Fitter]), call
// the model, append the assistant message, validate and run every call
// through the [tool.Executor] (each result shaped to its share of the room
// left, [budget.Room]), append all results in call order, and go on until
// the model answers without calling a tool. Loop guards stop a run that
// goes on too long or repeats itself; nudges go inside the tool message,
// never as a message of their own.
//
// The loop is written as a pure transition over a [State] ([Agent.Step])
// and a driver that performs the effects the state names
// ([Agent.Continue], [Agent.Stream], [Agent.Run]): a state can be saved
// after every step and the run continued from it, in another process.
// docs/loop.md describes the state machine, the guards and every stop
// reason.
//
// The package imports llm, tool, toolresult, budget and transcript, and never
// a provider client or a session store: a program wires those in.
package toolwire
