package otelrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// EpochUnix is the wall-clock instant, in seconds since the Unix epoch,
// that logical time 0 maps to: 2000-01-01T00:00:00Z. A crossing at logical
// time t (model.Millis) is stamped EpochUnix seconds plus t milliseconds.
const EpochUnix = 946684800

// Epoch is EpochUnix as a time.Time in UTC.
var Epoch = time.Unix(EpochUnix, 0).UTC()

// ScopeName is the instrumentation scope of every span; ServiceName is the
// service.name of the trace's resource.
const (
	ScopeName   = "github.com/faultline/faultline/otelrun"
	ServiceName = "faultline"
)

// Span and event names.
const (
	// FaultEventName names the span event of a fault that fired.
	FaultEventName = "faultline.fault"
	// InvariantEventName names the span event of a violated invariant, on
	// its first failing crossing.
	InvariantEventName = "faultline.invariant"
	// TaskSpanPrefix starts the name of a task's root span ("task ID").
	TaskSpanPrefix = "task "
)

// Attribute keys of a crossing span: one for each field of a timeline
// record (model.Event). Tool, fault, evidence, outcome and detail are set
// only when the record has them.
const (
	KeySeq                 = attribute.Key("faultline.seq")
	KeyTimeMs              = attribute.Key("faultline.t_ms")
	KeyEvent               = attribute.Key("faultline.event")
	KeyTool                = attribute.Key("faultline.tool")
	KeyOrdinal             = attribute.Key("faultline.ordinal")
	KeyActor               = attribute.Key("faultline.actor")
	KeyTask                = attribute.Key("faultline.task")
	KeyWorker              = attribute.Key("faultline.worker")
	KeyStateBefore         = attribute.Key("faultline.state_before")
	KeyStateAfter          = attribute.Key("faultline.state_after")
	KeyAttempt             = attribute.Key("faultline.attempt")
	KeyCheckpointSeq       = attribute.Key("faultline.checkpoint_seq")
	KeyRetryRemaining      = attribute.Key("faultline.retry_remaining")
	KeyDeadlineRemainingMs = attribute.Key("faultline.deadline_remaining_ms")
	KeyFaultID             = attribute.Key("faultline.fault_id")
	KeyEvidenceRef         = attribute.Key("faultline.evidence_ref")
	KeyOutcome             = attribute.Key("faultline.outcome")
	KeyDetail              = attribute.Key("faultline.detail")
)

// Attribute keys of a task's root span. The budget keys are set on the
// first task's root only (model.BudgetUse is the first task's).
const (
	KeyRunID                = attribute.Key("faultline.run_id")
	KeyScheduleSeed         = attribute.Key("faultline.schedule.seed")
	KeyConfig               = attribute.Key("faultline.config")
	KeyFixture              = attribute.Key("faultline.fixture")
	KeyRunVerdict           = attribute.Key("faultline.run_verdict")
	KeyTermsVerdict         = attribute.Key("faultline.terms.verdict")
	KeyClaimVerdict         = attribute.Key("faultline.claim.verdict")
	KeyClaimReason          = attribute.Key("faultline.claim.reason")
	KeyClaimDegraded        = attribute.Key("faultline.claim.degraded")
	KeyBudgetAttempts       = attribute.Key("faultline.budget.attempts")
	KeyBudgetRetryBudget    = attribute.Key("faultline.budget.retry_budget")
	KeyBudgetElapsedMs      = attribute.Key("faultline.budget.elapsed_ms")
	KeyBudgetDeadlineMs     = attribute.Key("faultline.budget.deadline_ms")
	KeyBudgetDeadlineLeftMs = attribute.Key("faultline.budget.deadline_remaining_ms")
	KeyBudgetRestarts       = attribute.Key("faultline.budget.restarts")
	KeyFaultsScheduled      = attribute.Key("faultline.faults.scheduled")
	KeyFaultsUnfired        = attribute.Key("faultline.faults.unfired")
	KeyInvariantsViolated   = attribute.Key("faultline.invariants.violated")
	KeyStoppedCondition     = attribute.Key("faultline.stopped.condition")
	KeyStoppedDetail        = attribute.Key("faultline.stopped.detail")
	KeyCrossings            = attribute.Key("faultline.crossings")
)

// OpenTelemetry semantic attributes: error.type on an error span (the
// first violated invariant's name), service.name on the resource.
const (
	KeyErrorType   = semconv.ErrorTypeKey
	KeyServiceName = semconv.ServiceNameKey
)

// Attribute keys of a fault's span event (its typed spec, model.FaultSpec,
// and what the injector proved, model.FaultReport) and of a violated
// invariant's (model.InvariantResult).
const (
	KeyFaultSpecID          = attribute.Key("faultline.fault.id")
	KeyFaultSpecKind        = attribute.Key("faultline.fault.kind")
	KeyFaultSpecMode        = attribute.Key("faultline.fault.mode")
	KeyFaultSpecDomain      = attribute.Key("faultline.fault.domain")
	KeyFaultSpecTarget      = attribute.Key("faultline.fault.target")
	KeyFaultSpecAt          = attribute.Key("faultline.fault.at")
	KeyFaultSpecBoundary    = attribute.Key("faultline.fault.boundary")
	KeyFaultSpecPhase       = attribute.Key("faultline.fault.phase")
	KeyFaultSpecCorrelation = attribute.Key("faultline.fault.correlation")
	KeyFaultSpecSignal      = attribute.Key("faultline.fault.withheld_signal")
	KeyFaultSpecManner      = attribute.Key("faultline.fault.manner")
	KeyFaultSpecOracle      = attribute.Key("faultline.fault.oracle")
	KeyFaultSpecWorld       = attribute.Key("faultline.fault.world")
	KeyFaultSpecFired       = attribute.Key("faultline.fault.fired")
	KeyFaultSpecObservedBy  = attribute.Key("faultline.fault.observed_by")
	KeyFaultSpecDetected    = attribute.Key("faultline.fault.detected")
	KeyInvariantName        = attribute.Key("faultline.invariant.name")
	KeyInvariantOracle      = attribute.Key("faultline.invariant.oracle")
	KeyInvariantFirstSeq    = attribute.Key("faultline.invariant.first_seq")
	KeyInvariantFaultID     = attribute.Key("faultline.invariant.fault_id")
	KeyInvariantDetail      = attribute.Key("faultline.invariant.detail")
	KeyInvariantEvent       = attribute.Key("faultline.invariant.event")
)

// Export writes the trace of res to exp in one ExportSpans call: the spans
// of the crossings in timeline order, then the root span of each task in
// the order of its first crossing. It does not shut exp down. It
// returns an error naming the problem for a nil result, a result without a
// schedule or timeline, a crossing that names a fault the result does not
// report, a fault of an unknown kind, and for exp's own error.
func Export(ctx context.Context, res *model.Result, exp sdktrace.SpanExporter) error {
	if exp == nil {
		return errors.New("otelrun: nil span exporter")
	}
	b, err := newBuilder(res)
	if err != nil {
		return err
	}
	col := &collector{}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(col),
		sdktrace.WithIDGenerator(newScheduleIDs(b.seed())),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{AttributeValueLengthLimit: -1, AttributeValueDepthLimit: -1,
			AttributeCountLimit: -1, EventCountLimit: -1, LinkCountLimit: -1, AttributePerEventCountLimit: -1, AttributePerLinkCountLimit: -1}),
		sdktrace.WithResource(sdkresource.NewWithAttributes(semconv.SchemaURL, KeyServiceName.String(ServiceName))),
	)
	b.emit(tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)))
	if err := tp.Shutdown(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("otelrun: %w", err)
	}
	if err := exp.ExportSpans(ctx, col.spans); err != nil {
		return fmt.Errorf("otelrun: exporting %d spans of run %s: %w", len(col.spans), res.RunID, err)
	}
	return nil
}

// Encode returns the trace of res in the OTLP/JSON file format (what
// [NewFileExporter] writes): one TracesData object and a newline.
func Encode(res *model.Result) ([]byte, error) {
	var buf bytes.Buffer
	if err := Export(context.Background(), res, NewFileExporter(&buf)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes the trace of res to path in the OTLP/JSON file format,
// replacing the file atomically. Errors name the path.
func WriteFile(path string, res *model.Result) error {
	data, err := Encode(res)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, data)
}

// FileName returns the file name a run's trace is given in a directory of
// traces: the run id and ".otlp.json" ("run-c076e5b2f72660b0.otlp.json").
func FileName(res *model.Result) string { return res.RunID + ".otlp.json" }

// WriteInDir writes the trace of res to dir/FileName(res), creating dir
// when it is missing, and returns the file's path. Errors name the path.
func WriteInDir(dir string, res *model.Result) (string, error) {
	if res == nil {
		return "", errors.New("otelrun: nil result")
	}
	if res.RunID == "" {
		return "", errors.New("otelrun: the result has no run id to name its file by")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("otelrun: creating the directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName(res))
	return path, WriteFile(path, res)
}

// collector is a span processor that keeps the ended spans in order.
type collector struct{ spans []sdktrace.ReadOnlySpan }

func (c *collector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collector) OnEnd(s sdktrace.ReadOnlySpan)                   { c.spans = append(c.spans, s) }
func (c *collector) Shutdown(context.Context) error                  { return nil }
func (c *collector) ForceFlush(context.Context) error                { return nil }

// builder holds a run checked for export.
type builder struct {
	res    *model.Result
	faults map[string]faultInfo
	// bySeq maps a timeline seq to its index.
	bySeq map[int]int
	// tasks in order of first crossing.
	tasks []string
	// violated invariants by timeline index; unplaced ones (no crossing
	// with their first seq) go on the first task's root.
	violated map[int][]model.InvariantResult
	unplaced []model.InvariantResult
	budget   model.BudgetUse
	fixture  string
}

type faultInfo struct {
	report model.FaultReport
	spec   model.FaultSpec
}

func newBuilder(res *model.Result) (*builder, error) {
	if res == nil {
		return nil, errors.New("otelrun: nil result")
	}
	if res.Schedule == nil {
		return nil, fmt.Errorf("otelrun: run %s has no schedule", res.RunID)
	}
	if res.Timeline.Len() == 0 {
		return nil, fmt.Errorf("otelrun: run %s has an empty timeline", res.RunID)
	}
	b := &builder{res: res, faults: map[string]faultInfo{}, bySeq: map[int]int{}, violated: map[int][]model.InvariantResult{}}
	for _, f := range res.Faults {
		spec, err := model.Spec(f.Kind)
		if err != nil {
			return nil, fmt.Errorf("otelrun: run %s: fault %s: %w", res.RunID, f.ID, err)
		}
		b.faults[f.ID] = faultInfo{report: f, spec: spec}
	}
	seen := map[string]bool{}
	for i, e := range res.Timeline.Events() {
		if _, dup := b.bySeq[e.Seq]; dup {
			return nil, fmt.Errorf("otelrun: run %s: seq %d appears twice in the timeline", res.RunID, e.Seq)
		}
		b.bySeq[e.Seq] = i
		if e.FaultID != "" {
			if _, ok := b.faults[e.FaultID]; !ok {
				return nil, fmt.Errorf("otelrun: run %s: crossing seq %d names fault %q, which the result does not report", res.RunID, e.Seq, e.FaultID)
			}
		}
		if !seen[e.Task] {
			seen[e.Task] = true
			b.tasks = append(b.tasks, e.Task)
		}
	}
	for _, inv := range res.Invariants {
		if inv.Held {
			continue
		}
		if i, ok := b.bySeq[inv.FirstSeq]; ok {
			b.violated[i] = append(b.violated[i], inv)
		} else {
			b.unplaced = append(b.unplaced, inv)
		}
	}
	rec := res.Record()
	b.budget, b.fixture = rec.Budget, rec.Contract.Fixture
	return b, nil
}

// seed is what the ids are derived from: the run id and the schedule.
func (b *builder) seed() []byte {
	return append([]byte(b.res.RunID+"\n"), model.Format(b.res.Schedule)...)
}

// at maps logical time onto the trace's clock.
func at(ms model.Millis) time.Time { return Epoch.Add(time.Duration(ms) * time.Millisecond) }

// emit starts and ends every span.
func (b *builder) emit(tr trace.Tracer) {
	res := b.res
	tl := res.Timeline.Events()
	start := func(i int) model.Millis {
		switch {
		case i == 0:
			return 0
		case tl[i-1].At > tl[i].At:
			return tl[i].At
		}
		return tl[i-1].At
	}
	type root struct {
		span  trace.Span
		ctx   context.Context
		end   model.Millis
		msgs  []string
		types []string
		n     int
	}
	roots := map[string]*root{}
	for i, e := range tl {
		r := roots[e.Task]
		if r == nil {
			ctx, span := tr.Start(context.Background(), TaskSpanPrefix+e.Task,
				trace.WithTimestamp(at(start(i))), trace.WithSpanKind(trace.SpanKindInternal))
			r = &root{span: span, ctx: ctx}
			roots[e.Task] = r
		}
		r.n++
		r.end = max(r.end, e.At)
		_, span := tr.Start(r.ctx, string(e.Event), trace.WithTimestamp(at(start(i))),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(crossingAttrs(e)...))
		if e.FaultID != "" {
			span.AddEvent(FaultEventName, trace.WithTimestamp(at(e.At)), trace.WithAttributes(faultAttrs(b.faults[e.FaultID])...))
		}
		if invs := b.violated[i]; len(invs) > 0 {
			var msgs []string
			for _, inv := range invs {
				span.AddEvent(InvariantEventName, trace.WithTimestamp(at(e.At)), trace.WithAttributes(invariantAttrs(inv)...))
				msgs = append(msgs, inv.Invariant+": "+inv.Detail)
				r.msgs = append(r.msgs, fmt.Sprintf("%s violated at seq %d (%s)", inv.Invariant, inv.FirstSeq, inv.Event))
				r.types = append(r.types, inv.Invariant)
			}
			span.SetAttributes(KeyErrorType.String(invs[0].Invariant))
			span.SetStatus(codes.Error, strings.Join(msgs, "; "))
		}
		span.End(trace.WithTimestamp(at(e.At)))
	}
	var violated, unfired []string
	for _, inv := range res.Invariants {
		if !inv.Held {
			violated = append(violated, inv.Invariant)
		}
	}
	for _, f := range res.Faults {
		if f.Fired == 0 {
			unfired = append(unfired, f.ID)
		}
	}
	for ti, task := range b.tasks {
		r := roots[task]
		attrs := []attribute.KeyValue{
			KeyRunID.String(res.RunID), KeyTask.String(task), KeyScheduleSeed.String(res.Schedule.Seed),
			KeyConfig.String(res.DescribeConfig()), KeyFixture.String(b.fixture),
			KeyRunVerdict.String(string(res.RunVerdict)), KeyTermsVerdict.String(string(res.Terms.Verdict)),
			KeyCrossings.Int(r.n), KeyFaultsScheduled.Int(len(res.Faults)),
			KeyFaultsUnfired.StringSlice(orEmpty(unfired)), KeyInvariantsViolated.StringSlice(orEmpty(violated)),
		}
		for _, c := range res.Claims {
			if c.Task == task {
				attrs = append(attrs, KeyClaimVerdict.String(string(c.Verdict)), KeyClaimReason.String(c.Reason), KeyClaimDegraded.Bool(c.Degraded))
				break
			}
		}
		if ti == 0 {
			u := b.budget
			attrs = append(attrs, KeyBudgetAttempts.Int(u.Attempts), KeyBudgetRetryBudget.Int(u.RetryBudget),
				KeyBudgetElapsedMs.Int64(int64(u.ElapsedMs)), KeyBudgetDeadlineMs.Int64(int64(u.DeadlineMs)),
				KeyBudgetDeadlineLeftMs.Int64(int64(u.DeadlineRemainingMs)), KeyBudgetRestarts.Int(u.Restarts))
			if st := res.Stopped; st != nil {
				attrs = append(attrs, KeyStoppedCondition.String(st.Condition), KeyStoppedDetail.String(st.Detail))
			}
			for _, inv := range b.unplaced {
				r.span.AddEvent(InvariantEventName, trace.WithTimestamp(at(r.end)), trace.WithAttributes(invariantAttrs(inv)...))
				r.msgs = append(r.msgs, inv.Invariant+" violated: "+inv.Detail)
				r.types = append(r.types, inv.Invariant)
			}
		}
		r.span.SetAttributes(attrs...)
		if len(r.msgs) > 0 {
			r.span.SetAttributes(KeyErrorType.String(r.types[0]))
			r.span.SetStatus(codes.Error, strings.Join(r.msgs, "; "))
		}
		r.span.End(trace.WithTimestamp(at(r.end)))
	}
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func crossingAttrs(e model.Event) []attribute.KeyValue {
	a := []attribute.KeyValue{
		KeySeq.Int(e.Seq), KeyTimeMs.Int64(int64(e.At)), KeyEvent.String(string(e.Event)), KeyOrdinal.Int(e.Ordinal),
		KeyActor.String(e.Actor), KeyTask.String(e.Task), KeyWorker.Int(e.Worker),
		KeyStateBefore.String(e.StateBefore), KeyStateAfter.String(e.StateAfter),
		KeyAttempt.Int(e.Attempt), KeyCheckpointSeq.Int(e.CheckpointSeq), KeyRetryRemaining.Int(e.RetryRemaining),
		KeyDeadlineRemainingMs.Int64(int64(e.DeadlineRemainingMs)),
	}
	for _, kv := range []struct {
		k attribute.Key
		v string
	}{{KeyTool, e.Tool}, {KeyFaultID, e.FaultID}, {KeyEvidenceRef, e.EvidenceRef}, {KeyOutcome, e.Outcome}, {KeyDetail, e.Detail}} {
		if kv.v != "" {
			a = append(a, kv.k.String(kv.v))
		}
	}
	return a
}

func faultAttrs(f faultInfo) []attribute.KeyValue {
	s, r := f.spec, f.report
	a := []attribute.KeyValue{
		KeyFaultSpecID.String(r.ID), KeyFaultSpecKind.String(s.Kind), KeyFaultSpecMode.String(s.Mode),
		KeyFaultSpecDomain.String(string(s.Domain)), KeyFaultSpecTarget.String(s.Target),
		KeyFaultSpecAt.String(r.Placement()),
		KeyFaultSpecBoundary.String(string(s.Boundary)), KeyFaultSpecPhase.String(string(s.Phase)),
		KeyFaultSpecCorrelation.String(string(s.Correlation)), KeyFaultSpecSignal.String(string(s.Signal)),
	}
	if s.Manner != "" {
		a = append(a, KeyFaultSpecManner.String(string(s.Manner)))
	}
	return append(a, KeyFaultSpecOracle.String(string(s.Oracle)), KeyFaultSpecWorld.Bool(s.World),
		KeyFaultSpecFired.Int(r.Fired), KeyFaultSpecObservedBy.StringSlice(orEmpty(r.Observed)), KeyFaultSpecDetected.Bool(r.Detected))
}

func invariantAttrs(inv model.InvariantResult) []attribute.KeyValue {
	a := []attribute.KeyValue{
		KeyInvariantName.String(inv.Invariant), KeyInvariantOracle.String(string(inv.Oracle)),
		KeyInvariantFirstSeq.Int(inv.FirstSeq), KeyInvariantEvent.String(string(inv.Event)),
	}
	if inv.FaultID != "" {
		a = append(a, KeyInvariantFaultID.String(inv.FaultID))
	}
	return append(a, KeyInvariantDetail.String(inv.Detail))
}
