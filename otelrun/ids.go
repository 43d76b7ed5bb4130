package otelrun

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"go.opentelemetry.io/otel/trace"
)

// scheduleIDs is an sdktrace.IDGenerator whose ids are derived from a seed
// (the run id and the schedule's canonical form): every root span gets the
// seed's one trace id, and the n-th span id is the first 8 bytes of
// SHA-256(seed, "span", n). The SDK calls it under its own locks but may
// call it from several goroutines, hence the mutex.
type scheduleIDs struct {
	mu    sync.Mutex
	seed  []byte
	trace trace.TraceID
	n     uint64
}

func newScheduleIDs(seed []byte) *scheduleIDs {
	g := &scheduleIDs{seed: append([]byte(nil), seed...)}
	sum := g.sum("trace", 0)
	copy(g.trace[:], sum[:16])
	if !g.trace.IsValid() {
		g.trace[15] = 1 // an all-zero id is invalid in OTLP
	}
	return g
}

func (g *scheduleIDs) sum(label string, n uint64) [32]byte {
	h := sha256.New()
	h.Write(g.seed)
	h.Write([]byte{0})
	h.Write([]byte(label))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	h.Write(b[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// NewIDs returns the run's trace id and the next span id.
func (g *scheduleIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	return g.trace, g.NewSpanID(ctx, g.trace)
}

// NewSpanID returns the next span id.
func (g *scheduleIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	sum := g.sum("span", g.n)
	var id trace.SpanID
	copy(id[:], sum[:8])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}
