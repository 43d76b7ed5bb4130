package otelrun

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// FileExporter is an sdktrace.SpanExporter that writes spans in the
// OTLP/JSON file format (the encoding is described in docs/traces.md):
// each ExportSpans call with at least one span writes one line, a TracesData
// object, and a newline. It is safe for concurrent use and does not close
// its writer.
type FileExporter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

// NewFileExporter returns a FileExporter writing to w.
func NewFileExporter(w io.Writer) *FileExporter { return &FileExporter{w: w} }

// errShutDown is returned by ExportSpans after Shutdown.
var errShutDown = errors.New("otelrun: the file exporter is shut down")

// ExportSpans writes spans as one TracesData line. It writes nothing for no
// spans, and returns ctx's error when ctx is done, an error after
// Shutdown, or the writer's error.
func (e *FileExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errShutDown
	}
	if len(spans) == 0 {
		return nil
	}
	line, err := marshalSpans(spans)
	if err != nil {
		return err
	}
	_, err = e.w.Write(append(line, '\n'))
	return err
}

// Shutdown stops the exporter: later ExportSpans calls fail.
func (e *FileExporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	return ctx.Err()
}

// marshalSpans returns spans as one OTLP/JSON TracesData object, without
// a trailing newline: ids as lowercase hex, 64-bit integers and timestamps
// as decimal strings, enums as integers, spans grouped by resource and
// then by scope in the order of their first span. A span whose
// trace or span id is invalid (all zero) is an error naming the span.
func marshalSpans(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	var td tracesData
	resIndex := map[string]int{}
	scopeIndex := map[string]int{}
	for _, s := range spans {
		sc := s.SpanContext()
		if !sc.TraceID().IsValid() || !sc.SpanID().IsValid() {
			return nil, fmt.Errorf("otelrun: span %q has an invalid trace or span id", s.Name())
		}
		var rattrs []attribute.KeyValue
		var rschema, rkey string
		if r := s.Resource(); r != nil {
			rattrs, rschema = r.Attributes(), r.SchemaURL()
			rkey = rschema + "\x00" + r.Encoded(attribute.DefaultEncoder())
		}
		ri, ok := resIndex[rkey]
		if !ok {
			ri = len(td.ResourceSpans)
			resIndex[rkey] = ri
			td.ResourceSpans = append(td.ResourceSpans, resourceSpans{Resource: resourceJSON{Attributes: keyValues(rattrs)}, SchemaURL: rschema})
		}
		scope := s.InstrumentationScope()
		skey := strconv.Itoa(ri) + "\x00" + scopeKey(scope)
		si, ok := scopeIndex[skey]
		rs := &td.ResourceSpans[ri]
		if !ok {
			si = len(rs.ScopeSpans)
			scopeIndex[skey] = si
			rs.ScopeSpans = append(rs.ScopeSpans, scopeSpans{
				Scope:     scopeJSON{Name: scope.Name, Version: scope.Version, Attributes: keyValues(scope.Attributes.ToSlice())},
				SchemaURL: scope.SchemaURL,
			})
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, spanOf(s))
	}
	return json.Marshal(&td)
}

func scopeKey(s instrumentation.Scope) string {
	return s.Name + "\x00" + s.Version + "\x00" + s.SchemaURL + "\x00" + s.Attributes.Encoded(attribute.DefaultEncoder())
}

// OTLP span flags: the low byte holds the W3C trace flags; bit 8 says the
// parent's remoteness is known, bit 9 that it is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// spanFlags are a span's trace flags and whether its parent is remote.
func spanFlags(sc, parent trace.SpanContext) uint32 {
	f := uint32(sc.TraceFlags()) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// flagsOf are a link's flags: its context's trace flags and remoteness.
func flagsOf(sc trace.SpanContext) uint32 {
	f := uint32(sc.TraceFlags()) | flagHasIsRemote
	if sc.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func spanOf(s sdktrace.ReadOnlySpan) spanJSON {
	sc := s.SpanContext()
	out := spanJSON{
		TraceID:                sc.TraceID().String(),
		SpanID:                 sc.SpanID().String(),
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   int(s.SpanKind()), // the SDK's kinds are numbered as OTLP's
		StartTimeUnixNano:      nanos(s.StartTime()),
		EndTimeUnixNano:        nanos(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Flags:                  spanFlags(sc, s.Parent()),
	}
	if p := s.Parent(); p.SpanID().IsValid() {
		out.ParentSpanID = p.SpanID().String()
	}
	for _, ev := range s.Events() {
		out.Events = append(out.Events, eventJSON{TimeUnixNano: nanos(ev.Time), Name: ev.Name,
			Attributes: keyValues(ev.Attributes), DroppedAttributesCount: uint32(ev.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		out.Links = append(out.Links, linkJSON{TraceID: l.SpanContext.TraceID().String(), SpanID: l.SpanContext.SpanID().String(),
			TraceState: l.SpanContext.TraceState().String(), Attributes: keyValues(l.Attributes),
			DroppedAttributesCount: uint32(l.DroppedAttributeCount), Flags: flagsOf(l.SpanContext)})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = &statusJSON{Code: 2, Message: st.Description} // STATUS_CODE_ERROR
	case codes.Ok:
		out.Status = &statusJSON{Code: 1} // STATUS_CODE_OK
	}
	return out
}

func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

func keyValues(kvs []attribute.KeyValue) []keyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]keyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = keyValue{Key: string(kv.Key), Value: anyOf(kv.Value)}
	}
	return out
}

func anyOf(v attribute.Value) anyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return anyValue{BoolValue: &b}
	case attribute.INT64:
		s := strconv.FormatInt(v.AsInt64(), 10)
		return anyValue{IntValue: &s}
	case attribute.FLOAT64:
		d := double(v.AsFloat64())
		return anyValue{DoubleValue: &d}
	case attribute.STRING:
		s := v.AsString()
		return anyValue{StringValue: &s}
	case attribute.BYTESLICE:
		s := base64.StdEncoding.EncodeToString(v.AsByteSlice()) // bytes are base64 in OTLP/JSON
		return anyValue{BytesValue: &s}
	case attribute.BOOLSLICE:
		var vs []anyValue
		for _, b := range v.AsBoolSlice() {
			vs = append(vs, anyOf(attribute.BoolValue(b)))
		}
		return anyValue{ArrayValue: &arrayValue{Values: orNoValues(vs)}}
	case attribute.INT64SLICE:
		var vs []anyValue
		for _, n := range v.AsInt64Slice() {
			vs = append(vs, anyOf(attribute.Int64Value(n)))
		}
		return anyValue{ArrayValue: &arrayValue{Values: orNoValues(vs)}}
	case attribute.FLOAT64SLICE:
		var vs []anyValue
		for _, f := range v.AsFloat64Slice() {
			vs = append(vs, anyOf(attribute.Float64Value(f)))
		}
		return anyValue{ArrayValue: &arrayValue{Values: orNoValues(vs)}}
	case attribute.STRINGSLICE:
		var vs []anyValue
		for _, s := range v.AsStringSlice() {
			vs = append(vs, anyOf(attribute.StringValue(s)))
		}
		return anyValue{ArrayValue: &arrayValue{Values: orNoValues(vs)}}
	case attribute.SLICE:
		var vs []anyValue
		for _, x := range v.AsSlice() {
			vs = append(vs, anyOf(x))
		}
		return anyValue{ArrayValue: &arrayValue{Values: orNoValues(vs)}}
	case attribute.MAP:
		kv := keyValues(v.AsMap())
		if kv == nil {
			kv = []keyValue{}
		}
		return anyValue{KvlistValue: &kvList{Values: kv}}
	}
	return anyValue{} // EMPTY: an AnyValue with no value
}

func orNoValues(vs []anyValue) []anyValue {
	if vs == nil {
		return []anyValue{}
	}
	return vs
}

// double is an OTLP/JSON double: a JSON number, or "NaN", "Infinity",
// "-Infinity" (the proto3 JSON mapping).
type double float64

func (d double) MarshalJSON() ([]byte, error) {
	f := float64(d)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(f)
}

// The OTLP/JSON shapes (opentelemetry/proto/trace/v1 and common/v1).
type (
	tracesData struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   resourceJSON `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
		SchemaURL  string       `json:"schemaUrl,omitempty"`
	}
	resourceJSON struct {
		Attributes []keyValue `json:"attributes,omitempty"`
	}
	scopeSpans struct {
		Scope     scopeJSON  `json:"scope"`
		Spans     []spanJSON `json:"spans"`
		SchemaURL string     `json:"schemaUrl,omitempty"`
	}
	scopeJSON struct {
		Name       string     `json:"name,omitempty"`
		Version    string     `json:"version,omitempty"`
		Attributes []keyValue `json:"attributes,omitempty"`
	}
	spanJSON struct {
		TraceID                string      `json:"traceId"`
		SpanID                 string      `json:"spanId"`
		TraceState             string      `json:"traceState,omitempty"`
		ParentSpanID           string      `json:"parentSpanId,omitempty"`
		Flags                  uint32      `json:"flags,omitempty"`
		Name                   string      `json:"name"`
		Kind                   int         `json:"kind"`
		StartTimeUnixNano      string      `json:"startTimeUnixNano"`
		EndTimeUnixNano        string      `json:"endTimeUnixNano"`
		Attributes             []keyValue  `json:"attributes,omitempty"`
		DroppedAttributesCount uint32      `json:"droppedAttributesCount,omitempty"`
		Events                 []eventJSON `json:"events,omitempty"`
		DroppedEventsCount     uint32      `json:"droppedEventsCount,omitempty"`
		Links                  []linkJSON  `json:"links,omitempty"`
		DroppedLinksCount      uint32      `json:"droppedLinksCount,omitempty"`
		Status                 *statusJSON `json:"status,omitempty"`
	}
	eventJSON struct {
		TimeUnixNano           string     `json:"timeUnixNano"`
		Name                   string     `json:"name"`
		Attributes             []keyValue `json:"attributes,omitempty"`
		DroppedAttributesCount uint32     `json:"droppedAttributesCount,omitempty"`
	}
	linkJSON struct {
		TraceID                string     `json:"traceId"`
		SpanID                 string     `json:"spanId"`
		TraceState             string     `json:"traceState,omitempty"`
		Attributes             []keyValue `json:"attributes,omitempty"`
		DroppedAttributesCount uint32     `json:"droppedAttributesCount,omitempty"`
		Flags                  uint32     `json:"flags,omitempty"`
	}
	statusJSON struct {
		Message string `json:"message,omitempty"`
		Code    int    `json:"code,omitempty"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		StringValue *string     `json:"stringValue,omitempty"`
		BoolValue   *bool       `json:"boolValue,omitempty"`
		IntValue    *string     `json:"intValue,omitempty"`
		DoubleValue *double     `json:"doubleValue,omitempty"`
		ArrayValue  *arrayValue `json:"arrayValue,omitempty"`
		KvlistValue *kvList     `json:"kvlistValue,omitempty"`
		BytesValue  *string     `json:"bytesValue,omitempty"`
	}
	arrayValue struct {
		Values []anyValue `json:"values"`
	}
	kvList struct {
		Values []keyValue `json:"values"`
	}
)
