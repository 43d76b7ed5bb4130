package otelrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
	"github.com/faultline/faultline/reference/copperfin"
)

// run runs kind once at its own event under cfg on a fresh decoder.
func run(t *testing.T, kind string, cfg model.Config) *model.Result {
	t.Helper()
	s, err := model.SingleFault(kind, cfg)
	require.NoError(t, err)
	res, err := copperfin.Definition().Run(s, model.Options{})
	require.NoError(t, err)
	return res
}

// readBack reads an OTLP/JSON file with the collector's unmarshaler.
func readBack(t *testing.T, data []byte) ptrace.Traces {
	t.Helper()
	require.Equal(t, 1, bytes.Count(data, []byte("\n")), "newlines: want one TracesData line")
	require.Equal(t, byte('\n'), data[len(data)-1], "want one TracesData line")
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	require.NoError(t, err, "the collector cannot read the file")
	return td
}

func ms(m model.Millis) pcommon.Timestamp {
	return pcommon.Timestamp(uint64(otelrun.Epoch.Unix())*1e9 + uint64(m)*1e6)
}

// crossingAttrs is what a crossing's span must carry, built from the
// timeline record field by field.
func crossingAttrs(e model.Event) map[string]any {
	a := map[string]any{
		"faultline.seq": int64(e.Seq), "faultline.t_ms": int64(e.At), "faultline.event": string(e.Event),
		"faultline.ordinal": int64(e.Ordinal), "faultline.actor": e.Actor, "faultline.task": e.Task,
		"faultline.worker": int64(e.Worker), "faultline.state_before": e.StateBefore, "faultline.state_after": e.StateAfter,
		"faultline.attempt": int64(e.Attempt), "faultline.checkpoint_seq": int64(e.CheckpointSeq),
		"faultline.retry_remaining": int64(e.RetryRemaining), "faultline.deadline_remaining_ms": int64(e.DeadlineRemainingMs),
	}
	for k, v := range map[string]string{"faultline.tool": e.Tool, "faultline.fault_id": e.FaultID, "faultline.evidence_ref": e.EvidenceRef,
		"faultline.outcome": e.Outcome, "faultline.detail": e.Detail} {
		if v != "" {
			a[k] = v
		}
	}
	return a
}

// TestTraceFileMatchesTimeline: the trace of timeout_after_commit under the
// baseline profile (one fired fault, effect_at_most_once violated at the
// second commit, recorded_agrees_with_ledger at the claim), written to a file and read back by the collector, has
// one root span for the task and one child span per crossing with the
// timeline's fields, the fault as a span event with its typed spec on the
// crossing where it fired, the invariant as an error on its first failing
// crossing and on the root, logical times from the epoch, and hex ids.
func TestTraceFileMatchesTimeline(t *testing.T) {
	res := run(t, "timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	// the trace shows the run as its record does: the task refund-O-731
	// and the other fixture identifiers by their references
	tl := res.Record().Timeline
	// the run this test is about, pinned
	if len(tl) != 22 || res.RunVerdict != model.Unrecoverable || len(res.Faults) != 1 || res.Faults[0].FiredAt != 16 {
		t.Fatalf("the run changed: %d crossings, verdict %s, faults %+v", len(tl), res.RunVerdict, res.Faults)
	}
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.FirstSeq != 19 || inv.Detail != "second ledger effect for task refund-O-731" {
		t.Fatalf("the run changed: %+v", inv)
	}
	path := filepath.Join(t.TempDir(), otelrun.FileName(res))
	require.NoError(t, otelrun.WriteFile(path, res))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	td := readBack(t, data)
	if td.ResourceSpans().Len() != 1 || td.ResourceSpans().At(0).ScopeSpans().Len() != 1 {
		t.Fatalf("want one resource and one scope, got %d resources", td.ResourceSpans().Len())
	}
	rs := td.ResourceSpans().At(0)
	assert.Equal(t, map[string]any{"service.name": "faultline"}, rs.Resource().Attributes().AsRaw(), "resource attributes")
	ss := rs.ScopeSpans().At(0)
	assert.Equal(t, "github.com/faultline/faultline/otelrun", ss.Scope().Name())
	spans := ss.Spans()
	require.Equal(t, len(tl)+1, spans.Len(), "spans: one per crossing and one for the task")
	root := spans.At(spans.Len() - 1)
	if root.Name() != "task ref-db32399f" || !root.ParentSpanID().IsEmpty() {
		t.Fatalf("last span %q parent %s, want the task's root", root.Name(), root.ParentSpanID())
	}
	traceID := root.TraceID()
	events := 0
	for i, e := range tl {
		s := spans.At(i)
		if s.Name() != string(e.Event) || s.TraceID() != traceID || s.ParentSpanID() != root.SpanID() || s.Kind() != ptrace.SpanKindInternal {
			t.Errorf("span %d: %q trace %s parent %s kind %s", i, s.Name(), s.TraceID(), s.ParentSpanID(), s.Kind())
		}
		start := model.Millis(0)
		if i > 0 {
			start = tl[i-1].At
		}
		if s.StartTimestamp() != ms(start) || s.EndTimestamp() != ms(e.At) {
			t.Errorf("seq %d: span %s..%s, want logical %d..%d ms from the epoch", e.Seq, s.StartTimestamp(), s.EndTimestamp(), start, e.At)
		}
		want := crossingAttrs(e)
		if e.Seq == 19 {
			want["error.type"] = model.InvEffectAtMostOnce
		}
		if e.Seq == 22 {
			want["error.type"] = model.InvRecordedAgreesWithLedger
		}
		if diff := cmp.Diff(want, s.Attributes().AsRaw()); diff != "" {
			t.Errorf("seq %d attributes (-want +got):\n%s", e.Seq, diff)
		}
		events += s.Events().Len()
		switch e.Seq {
		case 16:
			if e.FaultID != "f1" || s.Events().Len() != 1 || s.Status().Code() != ptrace.StatusCodeUnset {
				t.Fatalf("seq 16: fault %q, %d events, status %s", e.FaultID, s.Events().Len(), s.Status().Code())
			}
			ev := s.Events().At(0)
			spec, _ := model.Spec("timeout_after_commit")
			wantEv := map[string]any{
				"faultline.fault.id": "f1", "faultline.fault.kind": "timeout_after_commit", "faultline.fault.mode": spec.Mode,
				"faultline.fault.domain": string(spec.Domain), "faultline.fault.target": spec.Target, "faultline.fault.at": "tool.commit#1",
				"faultline.fault.boundary": string(spec.Boundary), "faultline.fault.phase": string(spec.Phase),
				"faultline.fault.correlation": string(spec.Correlation), "faultline.fault.withheld_signal": string(spec.Signal),
				"faultline.fault.manner": string(spec.Manner), "faultline.fault.oracle": "ledger_readback", "faultline.fault.world": false,
				"faultline.fault.fired": int64(1), "faultline.fault.observed_by": []any{"effect_at_most_once", "recorded_agrees_with_ledger"}, "faultline.fault.detected": true,
			}
			if spec.Domain != model.Domain("tool") || spec.Boundary == "" || spec.Phase == "" || spec.Signal == "" || spec.Manner == "" {
				t.Fatalf("spec of timeout_after_commit changed: %+v", spec)
			}
			if ev.Name() != "faultline.fault" || ev.Timestamp() != ms(172) {
				t.Errorf("fault event %q at %s", ev.Name(), ev.Timestamp())
			}
			if diff := cmp.Diff(wantEv, ev.Attributes().AsRaw()); diff != "" {
				t.Errorf("fault event attributes (-want +got):\n%s", diff)
			}
		case 19:
			if s.Events().Len() != 1 || s.Status().Code() != ptrace.StatusCodeError ||
				s.Status().Message() != "effect_at_most_once: second ledger effect for task ref-db32399f" {
				t.Fatalf("seq 19: %d events, status %s %q", s.Events().Len(), s.Status().Code(), s.Status().Message())
			}
			ev := s.Events().At(0)
			wantEv := map[string]any{
				"faultline.invariant.name": "effect_at_most_once", "faultline.invariant.oracle": "ledger_readback",
				"faultline.invariant.first_seq": int64(19), "faultline.invariant.event": "tool.commit",
				"faultline.invariant.fault_id": "f1", "faultline.invariant.detail": "second ledger effect for task ref-db32399f",
			}
			if ev.Name() != "faultline.invariant" || ev.Timestamp() != ms(222) {
				t.Errorf("invariant event %q at %s", ev.Name(), ev.Timestamp())
			}
			if diff := cmp.Diff(wantEv, ev.Attributes().AsRaw()); diff != "" {
				t.Errorf("invariant event attributes (-want +got):\n%s", diff)
			}
		case 22:
			const lacks = "the task's record (checkpoint 4) lacks effect req-1 of the provider's ledger"
			if s.Events().Len() != 1 || s.Status().Code() != ptrace.StatusCodeError ||
				s.Status().Message() != "recorded_agrees_with_ledger: "+lacks {
				t.Fatalf("seq 22: %d events, status %s %q", s.Events().Len(), s.Status().Code(), s.Status().Message())
			}
			ev := s.Events().At(0)
			wantEv := map[string]any{
				"faultline.invariant.name": "recorded_agrees_with_ledger", "faultline.invariant.oracle": "ledger_readback",
				"faultline.invariant.first_seq": int64(22), "faultline.invariant.event": "claim",
				"faultline.invariant.fault_id": "f1", "faultline.invariant.detail": lacks,
			}
			if ev.Name() != "faultline.invariant" || ev.Timestamp() != ms(252) {
				t.Errorf("invariant event %q at %s", ev.Name(), ev.Timestamp())
			}
			if diff := cmp.Diff(wantEv, ev.Attributes().AsRaw()); diff != "" {
				t.Errorf("invariant event attributes (-want +got):\n%s", diff)
			}
		default:
			if s.Events().Len() != 0 || s.Status().Code() != ptrace.StatusCodeUnset {
				t.Errorf("seq %d: %d events, status %s", e.Seq, s.Events().Len(), s.Status().Code())
			}
		}
	}
	assert.Equal(t, 3, events, "span events: one fault, two invariants")
	if root.StartTimestamp() != ms(0) || root.EndTimestamp() != ms(252) || root.Events().Len() != 0 ||
		root.Status().Code() != ptrace.StatusCodeError || root.Status().Message() != "effect_at_most_once violated at seq 19 (tool.commit); recorded_agrees_with_ledger violated at seq 22 (claim)" {
		t.Errorf("root %s..%s, %d events, status %s %q", root.StartTimestamp(), root.EndTimestamp(), root.Events().Len(), root.Status().Code(), root.Status().Message())
	}
	wantRoot := map[string]any{
		"faultline.run_id": res.RunID, "faultline.task": "ref-db32399f", "faultline.schedule.seed": "timeout_after_commit",
		"faultline.config": "profile baseline", "faultline.fixture": "copperfin", "faultline.run_verdict": "unrecoverable",
		"faultline.terms.verdict": "unsafe", "faultline.crossings": int64(22), "faultline.faults.scheduled": int64(1),
		"faultline.faults.unfired": []any{}, "faultline.invariants.violated": []any{"effect_at_most_once", "recorded_agrees_with_ledger"},
		"faultline.claim.verdict": "release", "faultline.claim.reason": "refund completed", "faultline.claim.degraded": false,
		"faultline.budget.attempts": int64(2), "faultline.budget.retry_budget": int64(2), "faultline.budget.elapsed_ms": int64(252),
		"faultline.budget.deadline_ms": int64(2000), "faultline.budget.deadline_remaining_ms": int64(1748), "faultline.budget.restarts": int64(0),
		"error.type": "effect_at_most_once",
	}
	if diff := cmp.Diff(wantRoot, root.Attributes().AsRaw()); diff != "" {
		t.Errorf("root attributes (-want +got):\n%s", diff)
	}

	// ids: lowercase hex in the file (as OTLP/JSON requires), the same
	// ids the collector decoded, one trace id, distinct span ids
	var raw struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					TraceID, SpanID, ParentSpanID string
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	hex32, hex16 := regexp.MustCompile(`^[0-9a-f]{32}$`), regexp.MustCompile(`^[0-9a-f]{16}$`)
	rawSpans := raw.ResourceSpans[0].ScopeSpans[0].Spans
	seen := map[string]bool{}
	for i, r := range rawSpans {
		s := spans.At(i)
		if !hex32.MatchString(r.TraceID) || !hex16.MatchString(r.SpanID) || r.TraceID != s.TraceID().String() ||
			r.SpanID != s.SpanID().String() || r.ParentSpanID != s.ParentSpanID().String() {
			t.Errorf("span %d: ids in the file %q %q %q, decoded %s %s %s", i, r.TraceID, r.SpanID, r.ParentSpanID, s.TraceID(), s.SpanID(), s.ParentSpanID())
		}
		seen[r.SpanID] = true
	}
	if len(rawSpans) != len(tl)+1 || len(seen) != len(rawSpans) {
		t.Errorf("%d spans in the file, %d distinct span ids", len(rawSpans), len(seen))
	}
}

// TestSameScheduleSameFile: the same schedule run twice, on two decoders,
// gives byte-identical files; another schedule gives another trace id.
func TestSameScheduleSameFile(t *testing.T) {
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		p := filepath.Join(dir, "run"+string(rune('a'+i))+".json")
		require.NoError(t, otelrun.WriteFile(p, run(t, "stale_policy", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))))
		var err error
		if files[i], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) || len(files[0]) == 0 {
		t.Fatalf("two runs of one schedule gave different files (%d and %d bytes)", len(files[0]), len(files[1]))
	}
	// a directory of traces: the file is named by the run and holds the
	// same bytes
	sub := filepath.Join(dir, "traces", "nightly")
	res := run(t, "stale_policy", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	p, err := otelrun.WriteInDir(sub, res)
	require.NoError(t, err)
	if got, _ := os.ReadFile(p); p != filepath.Join(sub, res.RunID+".otlp.json") || !bytes.Equal(got, files[0]) {
		t.Errorf("WriteInDir wrote %s (%d bytes)", p, len(got))
	}
	blocked := filepath.Join(dir, "runa.json", "x")
	if _, err := otelrun.WriteInDir(blocked, res); err == nil || !strings.Contains(err.Error(), blocked) {
		t.Errorf("a directory under a file: %v", err)
	}
	other, err := otelrun.Encode(run(t, "stale_policy", copperfin.ConfigOfProfile(copperfin.ProfileTyped)))
	require.NoError(t, err)
	a := readBack(t, files[0]).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	b := readBack(t, other).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	if a.TraceID() == b.TraceID() || a.SpanID() == b.SpanID() {
		t.Errorf("two schedules share trace id %s or span id %s", a.TraceID(), a.SpanID())
	}
}

// recorder is a SpanExporter of one's own: it counts the calls.
type recorder struct {
	tracetest.InMemoryExporter
	calls int
}

func (r *recorder) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	r.calls++
	return r.InMemoryExporter.ExportSpans(ctx, spans)
}

// TestExportToAnyExporter: Export hands every span of a run to an exporter
// the caller has, in one call and without shutting it down; on the batch
// fixture every task is a root span of the one trace, with its crossings
// as children. Bad input is an error naming it.
func TestExportToAnyExporter(t *testing.T) {
	res := run(t, "stale_policy", func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileTyped}.Config()
		c.Fixture = "copperfin-batch"
		return c
	}())
	rec := &recorder{}
	require.NoError(t, otelrun.Export(context.Background(), res, rec))
	spans := rec.GetSpans()
	tasks := map[string]int{}
	tl := res.Record().Timeline // the tasks by their references, as the trace names them
	for _, e := range tl {
		tasks[e.Task]++
	}
	if rec.calls != 1 || len(tasks) != 3 || len(spans) != len(tl)+3 {
		t.Fatalf("%d calls, %d tasks, %d spans for %d crossings", rec.calls, len(tasks), len(spans), len(tl))
	}
	roots := map[trace.SpanID]string{}
	for _, s := range spans[len(tl):] {
		if s.Parent.IsValid() || !strings.HasPrefix(s.Name, "task ") {
			t.Fatalf("span %q is not a task root", s.Name)
		}
		roots[s.SpanContext.SpanID()] = strings.TrimPrefix(s.Name, "task ")
	}
	for i, e := range tl {
		s := spans[i]
		if s.SpanContext.TraceID() != spans[0].SpanContext.TraceID() || roots[s.Parent.SpanID()] != e.Task {
			t.Errorf("seq %d of task %s: parent is the root of %q", e.Seq, e.Task, roots[s.Parent.SpanID()])
		}
	}
	for task, n := range tasks {
		var got int
		for _, s := range spans[len(tl):] {
			if s.Name == "task "+task {
				for _, kv := range s.Attributes {
					if kv.Key == "faultline.crossings" {
						got = int(kv.Value.AsInt64())
					}
				}
			}
		}
		if got != n {
			t.Errorf("task %s: faultline.crossings %d, want %d", task, got, n)
		}
	}
	// the exporter is still open
	require.NoError(t, rec.ExportSpans(context.Background(), nil))

	bad := *res
	badTL := append([]model.Event(nil), res.Timeline.Events()...)
	badTL[3].FaultID = "f9"
	bad.Timeline = model.TimelineOf(badTL)
	empty := *res
	empty.Timeline = model.Timeline{}
	noSched := *res
	noSched.Schedule = nil
	for _, c := range []struct {
		res  *model.Result
		exp  sdktrace.SpanExporter
		want string
	}{
		{nil, rec, "otelrun: nil result"},
		{res, nil, "otelrun: nil span exporter"},
		{&empty, rec, "has an empty timeline"},
		{&noSched, rec, "has no schedule"},
		{&bad, rec, `crossing seq 4 names fault "f9", which the result does not report`},
	} {
		if err := otelrun.Export(context.Background(), c.res, c.exp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if err := otelrun.Export(context.Background(), res, failing{}); err == nil || !strings.Contains(err.Error(), "exporting") || !errors.Is(err, errFull) {
		t.Errorf("exporter error %v", err)
	}
}

var errFull = errors.New("disk full")

type failing struct{}

func (failing) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return errFull }
func (failing) Shutdown(context.Context) error                             { return nil }

// TestFileExporterValues: every attribute type of the SDK is written in
// the OTLP/JSON encoding the collector reads back to the same values
// (doubles, NaN, bytes, nested slices and maps), several writers may share
// one exporter, and a shut-down exporter refuses spans.
func TestFileExporterValues(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("0102030405060708090a0b0c0d0e0f10")
	sid, _ := trace.SpanIDFromHex("1112131415161718")
	stub := tracetest.SpanStub{
		Name: "values", SpanKind: trace.SpanKindClient,
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
		StartTime:   time.Unix(1, 5), EndTime: time.Unix(2, 7),
		Attributes: []attribute.KeyValue{
			attribute.Float64("d", 1.5), attribute.Float64("nan", math.NaN()), attribute.Int64("big", math.MaxInt64),
			attribute.ByteSlice("bytes", []byte{0, 255}), attribute.Slice("mixed", attribute.IntValue(1), attribute.StringValue("x")), attribute.BoolSlice("bs", []bool{true, false}),
			attribute.Float64Slice("fs", []float64{0.25}), attribute.Int64Slice("is", []int64{-1}),
			attribute.Map("m", attribute.String("k", "v")), attribute.String("empty", ""),
		},
		Status: sdktrace.Status{Code: codes.Ok},
	}
	var buf bytes.Buffer
	e := otelrun.NewFileExporter(&buf)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := e.ExportSpans(context.Background(), tracetest.SpanStubs{stub}.Snapshots()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != lines[3] {
		t.Fatalf("%d lines, want 4 equal ones", len(lines))
	}
	s := readBack(t, []byte(lines[0]+"\n")).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	if s.TraceID().String() != "0102030405060708090a0b0c0d0e0f10" || s.SpanID().String() != "1112131415161718" ||
		s.Kind() != ptrace.SpanKindClient || s.StartTimestamp() != 1e9+5 || s.EndTimestamp() != 2e9+7 ||
		s.Status().Code() != ptrace.StatusCodeOk || s.Flags() != 0x101 {
		t.Errorf("span %s %s %s %d..%d %s flags %#x", s.TraceID(), s.SpanID(), s.Kind(), s.StartTimestamp(), s.EndTimestamp(), s.Status().Code(), s.Flags())
	}
	got := s.Attributes().AsRaw()
	if n, ok := got["nan"].(float64); !ok || !math.IsNaN(n) {
		t.Errorf("nan read back as %v", got["nan"])
	}
	delete(got, "nan")
	want := map[string]any{"d": 1.5, "big": int64(math.MaxInt64), "bytes": []byte{0, 255}, "bs": []any{true, false},
		"fs": []any{0.25}, "mixed": []any{int64(1), "x"}, "is": []any{int64(-1)}, "m": map[string]any{"k": "v"}, "empty": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if !strings.Contains(lines[0], `"traceId":"0102030405060708090a0b0c0d0e0f10"`) {
		t.Errorf("trace id not hex in %s", lines[0])
	}
	require.NoError(t, e.Shutdown(context.Background()))
	if err := e.ExportSpans(context.Background(), tracetest.SpanStubs{stub}.Snapshots()); err == nil || !strings.Contains(err.Error(), "shut down") {
		t.Errorf("after shutdown: %v", err)
	}
}

// TestInvariantWithoutItsCrossing: a violated invariant whose first seq is
// not in the timeline is put on the first task's root: its event there at
// the task's end, and the root's error status and error.type.
func TestInvariantWithoutItsCrossing(t *testing.T) {
	res := run(t, "timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	cp := *res
	cp.Invariants = append([]model.InvariantResult(nil), res.Invariants...)
	for i := range cp.Invariants {
		if !cp.Invariants[i].Held {
			cp.Invariants[i].FirstSeq = 999
		}
	}
	exp := tracetest.NewInMemoryExporter()
	require.NoError(t, otelrun.Export(context.Background(), &cp, exp))
	spans := exp.GetSpans()
	for _, s := range spans[:len(spans)-1] {
		if s.Status.Code != codes.Unset || len(s.Events) > 1 {
			t.Errorf("crossing %s: status %v, %d events", s.Name, s.Status, len(s.Events))
		}
	}
	root := spans[len(spans)-1]
	if len(root.Events) != 2 || root.Events[0].Name != "faultline.invariant" || !root.Events[0].Time.Equal(otelrun.Epoch.Add(252*time.Millisecond)) ||
		root.Events[1].Name != "faultline.invariant" || root.Status.Code != codes.Error ||
		root.Status.Description != "effect_at_most_once violated: second ledger effect for task ref-db32399f; recorded_agrees_with_ledger violated: the task's record (checkpoint 4) lacks effect req-1 of the provider's ledger" {
		t.Errorf("root events %+v status %+v", root.Events, root.Status)
	}
}
