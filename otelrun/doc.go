// Package otelrun turns a faultline run into an OpenTelemetry trace, so a
// run's timeline opens in the tracing tools people already use (Jaeger, or
// anything that reads OTLP).
//
// A run (a *model.Result) becomes one trace:
//
//   - each task of the run is a root span ("task ID"), carrying the run's
//     id, schedule seed, config, verdicts and budget use;
//   - each boundary crossing of the timeline is a child span of its task,
//     named by the event ("tool.commit"), with every field of the
//     timeline record as an attribute (faultline.seq, faultline.t_ms,
//     faultline.state_before, faultline.state_after, faultline.attempt,
//     faultline.checkpoint_seq, faultline.retry_remaining,
//     faultline.deadline_remaining_ms, faultline.evidence_ref, ...);
//   - each fault that fired is a span event "faultline.fault" on the
//     crossing where it fired, with its typed spec (faultline.fault.domain,
//     .boundary, .phase, .correlation, .withheld_signal, .oracle, ...);
//   - each violated invariant is a span event "faultline.invariant" on its
//     first failing crossing, whose span (and its task's root span) gets an
//     error status and the semantic attribute error.type.
//
// Time is logical: a crossing at logical time t (model.Millis) is placed at
// [Epoch] + t milliseconds, and its span runs from the previous crossing's
// time to its own. Trace and span ids come from an id generator seeded by
// the run id and the schedule's canonical form, so the same schedule gives
// the same trace, byte for byte.
//
// Entry points:
//
//   - [Export] writes a run's spans to any sdktrace.SpanExporter, in one
//     ExportSpans call.
//   - [NewFileExporter] is a SpanExporter that writes the OTLP/JSON file
//     format (one TracesData object a line, ids as hex), which the
//     collector's pdata and Jaeger's UI read.
//   - [WriteFile] writes a run's trace to a file in that format,
//     [WriteInDir] to a file named by the run ([FileName]) in a directory;
//     [Encode] returns the same bytes. [MarshalSpans] encodes any spans.
//
// The package depends on package model; model does not depend on it.
package otelrun
