package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unsafe"
)

// Timeline is a run's timeline: the events the harness recorded, one a
// boundary crossing, in order (Event.Seq is the index plus one). A run
// records each event in a compact form that holds no pointers (numbers,
// and indexes into a table of the run's strings); Events builds the full
// events, detail strings included, from that record on its first call,
// once, and keeps them. The record is the Result's own: no run reuses
// another's storage, and the full events are data recorded in the run,
// not the output of a second one.
//
// Len, Name, Ordinal, Task and Detail read one event from the record
// without building them all: what a reader that looks at every run needs.
//
// The zero Timeline has no events (a Result of Harness.LastOutcome) and
// encodes as JSON null; a Timeline encodes as the JSON array of Events.
// A Timeline is safe for concurrent use.
type Timeline struct{ t *timeline }

// timeline is a Timeline's storage: the compact record of a run (data,
// wide, runID) or, for a Timeline of given events (TimelineOf or decoded
// JSON), the events alone.
type timeline struct {
	// data is the record, without pointers: n entries of recEntry bytes,
	// then from vars the entries' fields, then from ends the end offset
	// of each of the run's strings (4 bytes each), then from strb the
	// strings' bytes. recorded is false for a Timeline of given events.
	data                []byte
	n, vars, ends, strb int32
	wide                []Event
	runID               string

	once     sync.Once
	recorded bool
	events   []Event
}

// A recorded event is an entry of recEntry bytes: the event's code (5
// bits) and the state before (3); the state after (3 bits) and the
// detail's kind (4); the outcome's code (5 bits, 0: none or a string) and
// recB1, recB2, recWide; a mask of the fields present (2 bytes); and the
// offset of those fields among the record's (4 bytes). The fields present
// follow in the order of their bits (recF*), each a varint, a string as
// its index among the run's strings: most are small, and a field that is
// zero or "" takes no byte. An event whose name or states have no code is
// kept whole in the timeline's wide list instead, at index recFN1, with
// recWide set.
const recEntry = 9

// bits of an entry's outBits
const (
	recB1   = 1 << 5
	recB2   = 1 << 6
	recWide = 1 << 7
)

// the fields of a recorded event, in the order they are written: the
// ones the per-event readers ask for first
const (
	recFOrdinal = iota
	recFTask    // string
	recFS1      // string
	recFS2      // string
	recFN1
	recFN2
	recFAt
	recFDeadline
	recFRetry
	recFCkSeq
	recFWorker
	recFAttempt
	recFFault   // string
	recFTool    // string
	recFOutcome // string: an outcome of no code
	recFRef     // string, last: setRef adds it after the others
	recFields
)

// recMaxFields is the most bytes an event's fields take.
const recMaxFields = recFields * binary.MaxVarintLen64

// recStrField marks the fields that are strings (uvarints of an index).
const recStrField = 1<<recFTask | 1<<recFS1 | 1<<recFS2 | 1<<recFFault | 1<<recFTool | 1<<recFOutcome | 1<<recFRef

// entry is the decoded head of the i-th entry.
type entry struct {
	evBefore, afterKind, outBits uint8
	mask                         uint16
	off                          int
}

func (e *entry) wide() bool         { return e.outBits&recWide != 0 }
func (e *entry) event() EventName   { return recEvents[e.evBefore&31] }
func (e *entry) before() string     { return recStates[e.evBefore>>5] }
func (e *entry) after() string      { return recStates[e.afterKind&7] }
func (e *entry) kind() detailKind   { return detailKind(e.afterKind >> 3 & 15) }
func (e *entry) outcomeCode() uint8 { return e.outBits & 31 }

func (t *timeline) entry(i int) entry {
	b := t.data[i*recEntry : i*recEntry+recEntry]
	return entry{evBefore: b[0], afterKind: b[1], outBits: b[2], mask: uint16(b[3]) | uint16(b[4])<<8,
		off: int(t.vars) + int(uint32(b[5])|uint32(b[6])<<8|uint32(b[7])<<16|uint32(b[8])<<24)}
}

// fields decodes e's fields (absent ones zero); strings as indexes plus
// one (0: "").
func (t *timeline) fields(e *entry) (f [recFields]int64) {
	p := e.off
	for m, k := e.mask, 0; m != 0; m, k = m>>1, k+1 {
		if m&1 == 0 {
			continue
		}
		u, n := binary.Uvarint(t.data[p:])
		p += n
		if recStrField&(1<<k) != 0 {
			f[k] = int64(u) + 1
		} else {
			f[k] = int64(u>>1) ^ -int64(u&1)
		}
	}
	return f
}

// field decodes e's field k alone (see fields).
func (t *timeline) field(e *entry, k int) int64 {
	if e.mask&(1<<k) == 0 {
		return 0
	}
	p := e.off
	// skip the fields before k
	for n := bits.OnesCount16(e.mask & (1<<k - 1)); n > 0; p++ {
		if t.data[p] < 0x80 {
			n--
		}
	}
	u, _ := binary.Uvarint(t.data[p:])
	if recStrField&(1<<k) != 0 {
		return int64(u) + 1
	}
	return int64(u>>1) ^ -int64(u&1)
}

// recEvents are the event names an entry codes (code i+1 is
// recEvents[i]): those of eventIndex, in its order, then the harness's
// and the system's own.
var recEvents = append(append([]EventName(nil), AllEvents...), EvNoticeReceive,
	EvWorkerCrash, EvWarn, EvClaim, EvStop, EvWorld)

// recStates are the workflow states an entry codes, in recStateCode's
// order.
var recStates = []string{StateCreated, StateRunning, StateCheckpointed, StateWaitingForTool,
	StateFailed, StateRecovering, StateResumed, StateCompleted}

func init() {
	// the codes' widths in an entry
	if len(recEvents) > 32 || len(recStates) > 8 || len(recOutcomes) > 31 || dHead > 15 {
		panic("model: an entry code outgrew its bits")
	}
	for i := range recEvents {
		if recEventCode(recEvents[i]) != i {
			panic("model: recEventCode out of step with recEvents at " + string(recEvents[i]))
		}
	}
	for i, s := range recOutcomes {
		if recOutcomeCode(s) != i {
			panic("model: recOutcomeCode out of step with recOutcomes at " + s)
		}
	}
	for i, s := range recStates {
		if recStateCode(s) != i {
			panic("model: recStateCode out of step with recStates at " + s)
		}
	}
}

func recEventCode(e EventName) int {
	if i := eventIndex(e); i >= 0 {
		return i
	}
	switch e {
	case EvWorkerCrash:
		return len(AllEvents) + 1
	case EvWarn:
		return len(AllEvents) + 2
	case EvClaim:
		return len(AllEvents) + 3
	case EvStop:
		return len(AllEvents) + 4
	case EvWorld:
		return len(AllEvents) + 5
	}
	return -1
}

func recStateCode(s string) int {
	switch s {
	case StateCreated:
		return 0
	case StateRunning:
		return 1
	case StateCheckpointed:
		return 2
	case StateWaitingForTool:
		return 3
	case StateFailed:
		return 4
	case StateRecovering:
		return 5
	case StateResumed:
		return 6
	case StateCompleted:
		return 7
	}
	return -1
}

// recOutcomes are the outcomes an entry codes (code i+1 is
// recOutcomes[i]), in recOutcomeCode's order.
var recOutcomes = []string{"ok", "not_found", "rejected", "live", "not_live", "committed", "unknown",
	"none", "hit", "miss", "delivered", "stopped", "release", "hold", "deny", "success"}

func recOutcomeCode(s string) int {
	switch s {
	case "ok":
		return 0
	case "not_found":
		return 1
	case "rejected":
		return 2
	case "live":
		return 3
	case "not_live":
		return 4
	case "committed":
		return 5
	case "unknown":
		return 6
	case "none":
		return 7
	case "hit":
		return 8
	case "miss":
		return 9
	case "delivered":
		return 10
	case "stopped":
		return 11
	case "release":
		return 12
	case "hold":
		return 13
	case "deny":
		return 14
	case "success":
		return 15
	}
	return -1
}

// detailKind is how a recorded detail is formatted from its parts.
type detailKind uint8

const (
	_ detailKind = iota // 0: no detail
	// dStr: s1 as it is
	dStr
	// dVersion: "version n1"
	dVersion
	// dEligible: "s1: eligible b1"
	dEligible
	// dSubject: "subject s1"
	dSubject
	// dCapability: "capability s1", and ", cached as of n1" when b1
	dCapability
	// dCommit: "s1 key s2 replayed b1 receipt b2"
	dCommit
	// dEntries: "n1 entries"
	dEntries
	// dRecords: "n1 records"
	dRecords
	// dCheckpointWrite: "checkpoint n1 state s1"
	dCheckpointWrite
	// dCheckpointLoad: "checkpoint n1 of head n2, state s1"
	dCheckpointLoad
	// dHead: "head n1"
	dHead
)

// detail is an event's detail as its parts, formatted (see detailKind)
// only when the events are built.
type detail struct {
	kind   detailKind
	b1, b2 bool
	s1, s2 string
	n1, n2 int64
}

// text formats d.
func (d *detail) text() string {
	switch d.kind {
	case dStr:
		return d.s1
	case dVersion:
		return "version " + strconv.FormatInt(d.n1, 10)
	case dEligible:
		return d.s1 + ": eligible " + strconv.FormatBool(d.b1)
	case dSubject:
		return "subject " + d.s1
	case dCapability:
		if d.b1 {
			return "capability " + d.s1 + ", cached as of " + strconv.FormatInt(d.n1, 10)
		}
		return "capability " + d.s1
	case dCommit:
		return d.s1 + " key " + d.s2 + " replayed " + strconv.FormatBool(d.b1) + " receipt " + strconv.FormatBool(d.b2)
	case dEntries:
		return strconv.FormatInt(d.n1, 10) + " entries"
	case dRecords:
		return strconv.FormatInt(d.n1, 10) + " records"
	case dCheckpointWrite:
		return "checkpoint " + strconv.FormatInt(d.n1, 10) + " state " + d.s1
	case dCheckpointLoad:
		return "checkpoint " + strconv.FormatInt(d.n1, 10) + " of head " + strconv.FormatInt(d.n2, 10) + ", state " + d.s1
	case dHead:
		return "head " + strconv.FormatInt(d.n1, 10)
	}
	return ""
}

// recorder is a detailed run's timeline while it is recorded: the
// entries, their fields and the strings they name, in storage the
// harness keeps from run to run (no pointers: the strings are copied in
// as they are named); take copies them into the record a Result owns.
type recorder struct {
	ents, vars []byte
	// sbuf holds the bytes of the run's strings, ends the end of each in
	// sbuf; recent are the offsets, lengths and indexes of the last few
	// stored, recentN their number
	sbuf    []byte
	ends    []uint32
	recent  [recDedup]struct{ off, n, idx uint32 }
	recentN int
	wide    []Event
	// refAt is where the last entry's recFRef field begins, -1 if none
	refAt int
	// last holds, for each string field, the string the last event that
	// had one gave it and its index: most events name the task, tool or
	// fault of the one before
	last [recFields]struct {
		s   string
		idx uint64
	}
}

// start begins a run's record.
func (c *recorder) start() {
	c.ents, c.vars, c.sbuf, c.ends, c.recentN = c.ents[:0], c.vars[:0], c.sbuf[:0], c.ends[:0], 0
	c.wide = nil
	c.refAt = -1
	c.last = [recFields]struct {
		s   string
		idx uint64
	}{}
}

// take copies the record into t, in one allocation of its exact size
// that t owns, and hands t the wide events.
func (c *recorder) take(t *timeline, runID string) {
	n := len(c.ents) + len(c.vars)
	strb := n + 4*len(c.ends)
	data := make([]byte, strb+len(c.sbuf))
	copy(data, c.ents)
	copy(data[len(c.ents):], c.vars)
	for i, e := range c.ends {
		binary.LittleEndian.PutUint32(data[n+4*i:], e)
	}
	copy(data[strb:], c.sbuf)
	t.n, t.vars, t.ends, t.strb = int32(len(c.ents)/recEntry), int32(len(c.ents)), int32(n), int32(strb)
	t.data, t.recorded, t.wide, t.runID = data, true, c.wide, runID
	c.wide = nil
}

// recDedup is how many of the last strings str looks at for the same
// string before it stores one again.
const recDedup = 8

// str returns the index of s, not "", among the run's strings, storing it
// unless it is one of the last few stored (most strings are the same task
// id, capability or tool as a little earlier).
func (c *recorder) str(s string) uint64 {
	for j := range c.recent[:min(c.recentN, recDedup)] {
		if r := &c.recent[j]; int(r.n) == len(s) && string(c.sbuf[r.off:r.off+r.n]) == s {
			return uint64(r.idx)
		}
	}
	idx := len(c.ends)
	c.recent[c.recentN%recDedup] = struct{ off, n, idx uint32 }{uint32(len(c.sbuf)), uint32(len(s)), uint32(idx)}
	c.recentN++
	c.sbuf = append(c.sbuf, s...)
	c.ends = append(c.ends, uint32(len(c.sbuf)))
	return uint64(idx)
}

// strOf is str for field f: the last string the field had is checked
// first.
func (c *recorder) strOf(f int, s string) uint64 {
	l := &c.last[f]
	if len(s) == len(l.s) && (unsafe.StringData(s) == unsafe.StringData(l.s) || s == l.s) {
		return l.idx
	}
	i := c.str(s)
	l.s, l.idx = s, i
	return i
}

// addEntry appends the entry of an event whose fields begin at off.
func (c *recorder) addEntry(evBefore, afterKind, outBits uint8, mask uint16, off int) {
	c.ents = append(c.ents, evBefore, afterKind, outBits, byte(mask), byte(mask>>8),
		byte(off), byte(off>>8), byte(off>>16), byte(off>>24))
}

// addWide records e whole.
func (c *recorder) addWide(e Event) {
	c.wide = append(c.wide, e)
	off := len(c.vars)
	c.vars = binary.AppendVarint(c.vars, int64(len(c.wide)-1))
	c.addEntry(0, 0, recWide, 1<<recFN1, off)
	c.refAt = -1
}

// compact records an event and returns false, recording nothing, when
// its name or a state has no code (see recEntry).
func (c *recorder) compact(ev EventName, before, after, outcome, task, fault, tool string,
	at, deadline Millis, retry, ckSeq, ordinal, worker, attempt int, d *detail) bool {
	evc, bc, ac := recEventCode(ev), recStateCode(before), recStateCode(after)
	if evc < 0 || bc < 0 || ac < 0 {
		return false
	}
	// the fields are written in place, past the record's end
	off := len(c.vars)
	if cap(c.vars)-off < recMaxFields {
		c.vars = slices.Grow(c.vars, recMaxFields)
	}
	b := c.vars[off : off+recMaxFields]
	k := 0
	var mask uint16
	num := func(f int, v int64) {
		if v != 0 {
			mask |= 1 << f
			if u := uint64(v<<1) ^ uint64(v>>63); u < 0x80 {
				b[k] = byte(u)
				k++
			} else {
				k += binary.PutUvarint(b[k:], u)
			}
		}
	}
	str := func(f int, s string) {
		mask |= 1 << f
		if i := c.strOf(f, s); i < 0x80 {
			b[k] = byte(i)
			k++
		} else {
			k += binary.PutUvarint(b[k:], i)
		}
	}
	num(recFOrdinal, int64(ordinal))
	if task != "" {
		str(recFTask, task)
	}
	if d.s1 != "" {
		str(recFS1, d.s1)
	}
	if d.s2 != "" {
		str(recFS2, d.s2)
	}
	num(recFN1, d.n1)
	num(recFN2, d.n2)
	num(recFAt, int64(at))
	num(recFDeadline, int64(deadline))
	num(recFRetry, int64(retry))
	num(recFCkSeq, int64(ckSeq))
	num(recFWorker, int64(worker))
	num(recFAttempt, int64(attempt))
	if fault != "" {
		str(recFFault, fault)
	}
	if tool != "" {
		str(recFTool, tool)
	}
	outBits := uint8(0)
	if outcome != "" {
		if o := recOutcomeCode(outcome); o >= 0 {
			outBits = uint8(o + 1)
		} else {
			str(recFOutcome, outcome)
		}
	}
	if d.b1 {
		outBits |= recB1
	}
	if d.b2 {
		outBits |= recB2
	}
	c.vars = c.vars[:off+k]
	c.addEntry(uint8(evc)|uint8(bc)<<5, uint8(ac)|uint8(d.kind)<<3, outBits, mask, off)
	c.refAt = -1
	return true
}

// str returns the run's string of field value i (0 is "", else index
// i-1): a view of the record's bytes, which nothing writes again.
func (t *timeline) str(i int64) string {
	if i == 0 {
		return ""
	}
	j := int(i - 1)
	start := 0
	if j > 0 {
		start = int(binary.LittleEndian.Uint32(t.data[int(t.ends)+4*(j-1):]))
	}
	end := int(binary.LittleEndian.Uint32(t.data[int(t.ends)+4*j:]))
	return unsafe.String(&t.data[int(t.strb)+start], end-start)
}

func (t *timeline) detail(e *entry, f *[recFields]int64) string {
	d := detail{kind: e.kind(), b1: e.outBits&recB1 != 0, b2: e.outBits&recB2 != 0, s1: t.str(f[recFS1]), s2: t.str(f[recFS2]), n1: f[recFN1], n2: f[recFN2]}
	return d.text()
}

func (t *timeline) outcome(e *entry, f *[recFields]int64) string {
	if o := e.outcomeCode(); o > 0 {
		return recOutcomes[o-1]
	}
	return t.str(f[recFOutcome])
}

// wideOf returns the wide event of the entry e, which has recWide.
func (t *timeline) wideOf(e *entry) *Event { return &t.wide[t.field(e, recFN1)] }

// event returns the full i-th event.
func (t *timeline) event(i int) Event {
	e := t.entry(i)
	if e.wide() {
		w := *t.wideOf(&e)
		w.RunID = t.runID
		return w
	}
	f := t.fields(&e)
	ev := e.event()
	return Event{
		RunID: t.runID, Seq: i + 1, At: Millis(f[recFAt]), StateBefore: e.before(), StateAfter: e.after(),
		Actor: actorOf(ev), Event: ev, Tool: t.str(f[recFTool]), Ordinal: int(f[recFOrdinal]), Task: t.str(f[recFTask]),
		Worker: int(f[recFWorker]), FaultID: t.str(f[recFFault]), Attempt: int(f[recFAttempt]), CheckpointSeq: int(f[recFCkSeq]),
		RetryRemaining: int(f[recFRetry]), DeadlineRemainingMs: Millis(f[recFDeadline]), EvidenceRef: t.str(f[recFRef]),
		Outcome: t.outcome(&e, &f), Detail: t.detail(&e, &f),
	}
}

// build returns the full events of the record.
func (t *timeline) build() []Event {
	t.once.Do(func() {
		out := make([]Event, t.n)
		for i := range out {
			out[i] = t.event(i)
		}
		t.events = out
	})
	return t.events
}

// TimelineOf returns the Timeline of events (which it keeps, not copies):
// for a Result a program builds or decodes itself.
func TimelineOf(events []Event) Timeline {
	t := &timeline{events: events}
	t.once.Do(func() {})
	return Timeline{t}
}

// Events returns the timeline's events, built from the run's record on
// the first call; later calls return the same slice, the Timeline's own
// (nil for the zero Timeline, empty for a run without events).
func (tl Timeline) Events() []Event {
	if tl.t == nil {
		return nil
	}
	return tl.t.build()
}

// Len returns the number of events.
func (tl Timeline) Len() int {
	switch {
	case tl.t == nil:
		return 0
	case tl.t.recorded:
		return int(tl.t.n)
	}
	return len(tl.t.events)
}

// Name returns the event name of the i-th event (0-based, seq i+1)
// without building the events; it panics when i is out of range, as an
// index of Events does.
func (tl Timeline) Name(i int) EventName {
	t := tl.t
	if !t.recorded {
		return t.events[i].Event
	}
	e := t.at(i)
	if e.wide() {
		return t.wideOf(&e).Event
	}
	return e.event()
}

// Ordinal returns the ordinal of the i-th event (0-based), as Name does.
func (tl Timeline) Ordinal(i int) int {
	t := tl.t
	if !t.recorded {
		return t.events[i].Ordinal
	}
	e := t.at(i)
	if e.wide() {
		return t.wideOf(&e).Ordinal
	}
	return int(t.field(&e, recFOrdinal))
}

// Task returns the task of the i-th event (0-based), as Name does.
func (tl Timeline) Task(i int) string {
	t := tl.t
	if !t.recorded {
		return t.events[i].Task
	}
	e := t.at(i)
	if e.wide() {
		return t.wideOf(&e).Task
	}
	return t.str(t.field(&e, recFTask))
}

// Detail returns the detail of the i-th event (0-based), as Name does;
// without building the events, it formats that one detail again on every
// call.
func (tl Timeline) Detail(i int) string {
	t := tl.t
	if !t.recorded {
		return t.events[i].Detail
	}
	e := t.at(i)
	if e.wide() {
		return t.wideOf(&e).Detail
	}
	f := t.fields(&e)
	return t.detail(&e, &f)
}

// at is entry(i), panicking as an index of Events does when i is out of
// range.
func (t *timeline) at(i int) entry {
	if uint(i) >= uint(t.n) {
		panic(fmt.Sprintf("runtime error: index out of range [%d] with length %d", i, t.n))
	}
	return t.entry(i)
}

// Equal reports whether tl and u hold equal events (both zero, or
// neither and their Events equal).
func (tl Timeline) Equal(u Timeline) bool {
	if (tl.t == nil) != (u.t == nil) {
		return false
	}
	return tl.t == u.t || slices.Equal(tl.Events(), u.Events())
}

// Format prints the timeline as fmt prints its Events, under any verb.
func (tl Timeline) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), tl.Events())
}

// MarshalJSON encodes the timeline as the JSON array of its events (null
// for the zero Timeline).
func (tl Timeline) MarshalJSON() ([]byte, error) {
	if tl.t == nil {
		return []byte("null"), nil
	}
	// without HTML escaping: the encoder that called this escapes the
	// bytes returned, as it would have escaped the events themselves,
	// only when it is asked to
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tl.Events()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes a JSON array of events (null: the zero Timeline).
func (tl *Timeline) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*tl = Timeline{}
		return nil
	}
	var evs []Event
	if err := json.Unmarshal(data, &evs); err != nil {
		return err
	}
	*tl = TimelineOf(evs)
	return nil
}

// setRef sets the evidence reference of the last event recorded.
func (c *recorder) setRef(ref string) {
	k := len(c.ents) - recEntry
	e := c.ents[k : k+recEntry]
	if e[2]&recWide != 0 {
		c.wide[len(c.wide)-1].EvidenceRef = ref
		return
	}
	mask := uint16(e[3]) | uint16(e[4])<<8
	if c.refAt >= 0 {
		// set before: the field is the last, and goes
		c.vars = c.vars[:c.refAt]
		c.refAt = -1
		mask &^= 1 << recFRef
	}
	if ref != "" {
		c.refAt = len(c.vars)
		c.vars = binary.AppendUvarint(c.vars, c.str(ref))
		mask |= 1 << recFRef
	}
	e[3], e[4] = byte(mask), byte(mask>>8)
}
