// Package otelrun turns a faultline run (a *model.Result) into an
// OpenTelemetry trace, so a run's timeline opens in the tracing tools people
// already use (Jaeger, or anything that reads OTLP).
//
// Each task is a root span, each boundary crossing a child span of its task
// with the timeline record's fields as attributes, each fired fault a span
// event [FaultEventName] and each violated invariant a span event
// [InvariantEventName] on its first failing crossing. Time is logical,
// placed at [Epoch]; ids derive from the run and its schedule, so the same
// schedule gives the same trace, byte for byte. docs/traces.md lists every
// attribute and the file format.
//
// Entry points:
//
//   - [Export] writes a run's spans to any sdktrace.SpanExporter.
//   - [NewFileExporter] is a SpanExporter writing the OTLP/JSON file format.
//   - [WriteFile], [WriteInDir] (under [FileName]) and [Encode] write a
//     run's trace in that format.
//
// The package depends on package model; model does not depend on it.
package otelrun
