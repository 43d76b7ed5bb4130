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

// epochUnix is logical time 0 in seconds since the Unix epoch:
// 2000-01-01T00:00:00Z.
const epochUnix = 946684800

// Epoch is the instant logical time 0 is placed at (2000-01-01T00:00:00Z
// UTC): a crossing at logical time t (model.Millis) ends at Epoch plus t
// milliseconds, so the dates a viewer shows are not when the run happened.
var Epoch = time.Unix(epochUnix, 0).UTC()

// Names in the trace. The attribute names are listed in docs/traces.md.
const (
	// ScopeName is the instrumentation scope of every span.
	ScopeName = "github.com/faultline/faultline/otelrun"
	// ServiceName is the service.name of the trace's resource.
	ServiceName = "faultline"
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
	keySeq                 = attribute.Key("faultline.seq")
	keyTimeMs              = attribute.Key("faultline.t_ms")
	keyEvent               = attribute.Key("faultline.event")
	keyTool                = attribute.Key("faultline.tool")
	keyOrdinal             = attribute.Key("faultline.ordinal")
	keyActor               = attribute.Key("faultline.actor")
	keyTask                = attribute.Key("faultline.task")
	keyWorker              = attribute.Key("faultline.worker")
	keyStateBefore         = attribute.Key("faultline.state_before")
	keyStateAfter          = attribute.Key("faultline.state_after")
	keyAttempt             = attribute.Key("faultline.attempt")
	keyCheckpointSeq       = attribute.Key("faultline.checkpoint_seq")
	keyRetryRemaining      = attribute.Key("faultline.retry_remaining")
	keyDeadlineRemainingMs = attribute.Key("faultline.deadline_remaining_ms")
	keyFaultID             = attribute.Key("faultline.fault_id")
	keyEvidenceRef         = attribute.Key("faultline.evidence_ref")
	keyOutcome             = attribute.Key("faultline.outcome")
	keyDetail              = attribute.Key("faultline.detail")
)

// Attribute keys of a task's root span. The budget keys are set on the
// first task's root only (model.BudgetUse is the first task's).
const (
	keyRunID                = attribute.Key("faultline.run_id")
	keyScheduleSeed         = attribute.Key("faultline.schedule.seed")
	keyConfig               = attribute.Key("faultline.config")
	keyFixture              = attribute.Key("faultline.fixture")
	keyRunVerdict           = attribute.Key("faultline.run_verdict")
	keyTermsVerdict         = attribute.Key("faultline.terms.verdict")
	keyClaimVerdict         = attribute.Key("faultline.claim.verdict")
	keyClaimReason          = attribute.Key("faultline.claim.reason")
	keyClaimDegraded        = attribute.Key("faultline.claim.degraded")
	keyBudgetAttempts       = attribute.Key("faultline.budget.attempts")
	keyBudgetRetryBudget    = attribute.Key("faultline.budget.retry_budget")
	keyBudgetElapsedMs      = attribute.Key("faultline.budget.elapsed_ms")
	keyBudgetDeadlineMs     = attribute.Key("faultline.budget.deadline_ms")
	keyBudgetDeadlineLeftMs = attribute.Key("faultline.budget.deadline_remaining_ms")
	keyBudgetRestarts       = attribute.Key("faultline.budget.restarts")
	keyFaultsScheduled      = attribute.Key("faultline.faults.scheduled")
	keyFaultsUnfired        = attribute.Key("faultline.faults.unfired")
	keyInvariantsViolated   = attribute.Key("faultline.invariants.violated")
	keyStoppedCondition     = attribute.Key("faultline.stopped.condition")
	keyStoppedDetail        = attribute.Key("faultline.stopped.detail")
	keyCrossings            = attribute.Key("faultline.crossings")
)

// OpenTelemetry semantic attributes: error.type on an error span (the
// first violated invariant's name), service.name on the resource.
const (
	keyErrorType   = semconv.ErrorTypeKey
	keyServiceName = semconv.ServiceNameKey
)

// Attribute keys of a fault's span event (its typed spec, model.FaultSpec,
// and what the injector proved, model.FaultReport) and of a violated
// invariant's (model.InvariantResult).
const (
	keyFaultSpecID          = attribute.Key("faultline.fault.id")
	keyFaultSpecKind        = attribute.Key("faultline.fault.kind")
	keyFaultSpecMode        = attribute.Key("faultline.fault.mode")
	keyFaultSpecDomain      = attribute.Key("faultline.fault.domain")
	keyFaultSpecTarget      = attribute.Key("faultline.fault.target")
	keyFaultSpecAt          = attribute.Key("faultline.fault.at")
	keyFaultSpecBoundary    = attribute.Key("faultline.fault.boundary")
	keyFaultSpecPhase       = attribute.Key("faultline.fault.phase")
	keyFaultSpecCorrelation = attribute.Key("faultline.fault.correlation")
	keyFaultSpecSignal      = attribute.Key("faultline.fault.withheld_signal")
	keyFaultSpecManner      = attribute.Key("faultline.fault.manner")
	keyFaultSpecOracle      = attribute.Key("faultline.fault.oracle")
	keyFaultSpecWorld       = attribute.Key("faultline.fault.world")
	keyFaultSpecFired       = attribute.Key("faultline.fault.fired")
	keyFaultSpecObservedBy  = attribute.Key("faultline.fault.observed_by")
	keyFaultSpecDetected    = attribute.Key("faultline.fault.detected")
	keyInvariantName        = attribute.Key("faultline.invariant.name")
	keyInvariantOracle      = attribute.Key("faultline.invariant.oracle")
	keyInvariantFirstSeq    = attribute.Key("faultline.invariant.first_seq")
	keyInvariantFaultID     = attribute.Key("faultline.invariant.fault_id")
	keyInvariantDetail      = attribute.Key("faultline.invariant.detail")
	keyInvariantEvent       = attribute.Key("faultline.invariant.event")
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
		sdktrace.WithResource(sdkresource.NewWithAttributes(semconv.SchemaURL, keyServiceName.String(ServiceName))),
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
	// tl and claims are the run record's timeline and claims: the
	// fixture's identifiers redacted as model.RunRecord redacts them
	tl     []model.Event
	claims []model.TaskClaim
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
	rec := res.Record()
	b.budget, b.fixture, b.tl, b.claims = rec.Budget, rec.Contract.Fixture, rec.Timeline, rec.Claims
	detail := map[string]string{}
	for _, v := range rec.Violations {
		detail[v.Invariant] = v.Detail
	}
	for _, f := range res.Faults {
		spec, err := model.Spec(f.Kind)
		if err != nil {
			return nil, fmt.Errorf("otelrun: run %s: fault %s: %w", res.RunID, f.ID, err)
		}
		b.faults[f.ID] = faultInfo{report: f, spec: spec}
	}
	seen := map[string]bool{}
	for i, e := range b.tl {
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
		inv.Detail = detail[inv.Invariant]
		if i, ok := b.bySeq[inv.FirstSeq]; ok {
			b.violated[i] = append(b.violated[i], inv)
		} else {
			b.unplaced = append(b.unplaced, inv)
		}
	}
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
	tl := b.tl
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
			span.SetAttributes(keyErrorType.String(invs[0].Invariant))
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
			keyRunID.String(res.RunID), keyTask.String(task), keyScheduleSeed.String(res.Schedule.Seed),
			keyConfig.String(res.DescribeConfig()), keyFixture.String(b.fixture),
			keyRunVerdict.String(string(res.RunVerdict)), keyTermsVerdict.String(string(res.Terms.Verdict)),
			keyCrossings.Int(r.n), keyFaultsScheduled.Int(len(res.Faults)),
			keyFaultsUnfired.StringSlice(orEmpty(unfired)), keyInvariantsViolated.StringSlice(orEmpty(violated)),
		}
		for _, c := range b.claims {
			if c.Task == task {
				attrs = append(attrs, keyClaimVerdict.String(string(c.Verdict)), keyClaimReason.String(c.Reason), keyClaimDegraded.Bool(c.Degraded))
				break
			}
		}
		if ti == 0 {
			u := b.budget
			attrs = append(attrs, keyBudgetAttempts.Int(u.Attempts), keyBudgetRetryBudget.Int(u.RetryBudget),
				keyBudgetElapsedMs.Int64(int64(u.ElapsedMs)), keyBudgetDeadlineMs.Int64(int64(u.DeadlineMs)),
				keyBudgetDeadlineLeftMs.Int64(int64(u.DeadlineRemainingMs)), keyBudgetRestarts.Int(u.Restarts))
			if st := res.Stopped; st != nil {
				attrs = append(attrs, keyStoppedCondition.String(st.Condition), keyStoppedDetail.String(st.Detail))
			}
			for _, inv := range b.unplaced {
				r.span.AddEvent(InvariantEventName, trace.WithTimestamp(at(r.end)), trace.WithAttributes(invariantAttrs(inv)...))
				r.msgs = append(r.msgs, inv.Invariant+" violated: "+inv.Detail)
				r.types = append(r.types, inv.Invariant)
			}
		}
		r.span.SetAttributes(attrs...)
		if len(r.msgs) > 0 {
			r.span.SetAttributes(keyErrorType.String(r.types[0]))
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
		keySeq.Int(e.Seq), keyTimeMs.Int64(int64(e.At)), keyEvent.String(string(e.Event)), keyOrdinal.Int(e.Ordinal),
		keyActor.String(e.Actor), keyTask.String(e.Task), keyWorker.Int(e.Worker),
		keyStateBefore.String(e.StateBefore), keyStateAfter.String(e.StateAfter),
		keyAttempt.Int(e.Attempt), keyCheckpointSeq.Int(e.CheckpointSeq), keyRetryRemaining.Int(e.RetryRemaining),
		keyDeadlineRemainingMs.Int64(int64(e.DeadlineRemainingMs)),
	}
	for _, kv := range []struct {
		k attribute.Key
		v string
	}{{keyTool, e.Tool}, {keyFaultID, e.FaultID}, {keyEvidenceRef, e.EvidenceRef}, {keyOutcome, e.Outcome}, {keyDetail, e.Detail}} {
		if kv.v != "" {
			a = append(a, kv.k.String(kv.v))
		}
	}
	return a
}

func faultAttrs(f faultInfo) []attribute.KeyValue {
	s, r := f.spec, f.report
	a := []attribute.KeyValue{
		keyFaultSpecID.String(r.ID), keyFaultSpecKind.String(s.Kind), keyFaultSpecMode.String(s.Mode),
		keyFaultSpecDomain.String(string(s.Domain)), keyFaultSpecTarget.String(s.Target),
		keyFaultSpecAt.String(r.Placement()),
		keyFaultSpecBoundary.String(string(s.Boundary)), keyFaultSpecPhase.String(string(s.Phase)),
		keyFaultSpecCorrelation.String(string(s.Correlation)), keyFaultSpecSignal.String(string(s.Signal)),
	}
	if s.Manner != "" {
		a = append(a, keyFaultSpecManner.String(string(s.Manner)))
	}
	return append(a, keyFaultSpecOracle.String(string(s.Oracle)), keyFaultSpecWorld.Bool(s.World),
		keyFaultSpecFired.Int(r.Fired), keyFaultSpecObservedBy.StringSlice(orEmpty(r.Observed)), keyFaultSpecDetected.Bool(r.Detected))
}

func invariantAttrs(inv model.InvariantResult) []attribute.KeyValue {
	a := []attribute.KeyValue{
		keyInvariantName.String(inv.Invariant), keyInvariantOracle.String(string(inv.Oracle)),
		keyInvariantFirstSeq.Int(inv.FirstSeq), keyInvariantEvent.String(string(inv.Event)),
	}
	if inv.FaultID != "" {
		a = append(a, keyInvariantFaultID.String(inv.FaultID))
	}
	return append(a, keyInvariantDetail.String(inv.Detail))
}
