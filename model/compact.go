package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unsafe"
)

// Timeline is a run's timeline: the events the harness recorded, one a
// boundary crossing, in order (Event.Seq is the index plus one). It keeps a
// compact record; Events builds the full events once, and Len, Name,
// Ordinal, Task and Detail read one event without building them all. The
// zero Timeline has no events and encodes as JSON null; a Timeline encodes
// as the JSON array of Events and is safe for concurrent use.
type Timeline struct{ t *timeline }

// timeline is a Timeline's storage: the compact record of a run (recs,
// strs, wide, runID) or, for a Timeline of given events (TimelineOf or
// decoded JSON), the events alone.
type timeline struct {
	recs  []evRec
	strs  []string
	wide  []Event
	runID string

	once   sync.Once
	events []Event
}

// evRec is one recorded event in 40 bytes without pointers: numbers that
// fit (32 bits for times and the detail's first number, 16 for the
// rest), codes of the common strings (recEvents, recStates, recOutcomes)
// and indexes into the run's strings (1-based, 0 is ""). The detail is
// kept as its parts (see detail) and formatted when the events are built.
// An event that does not fit (a number too large, a name or state of no
// code, more strings than an index holds) is kept whole in the timeline's
// wide list instead, at index n1, with recWide set.
type evRec struct {
	at, deadline, n1                           int32
	retry, ckSeq, n2, ordinal, worker, attempt int16
	// x is the evidence reference, or the outcome when it has no code
	// (recOutS)
	task, fault, tool, x, s1, s2 uint16
	// evBefore: the event's code (5 bits) and the state before (3);
	// afterKind: the state after (3 bits), the detail's kind (4) and
	// recOutS; outBits: the outcome's code (5 bits, 0: none or x) and
	// recB1, recB2, recWide
	evBefore, afterKind, outBits uint8
}

// bits of evRec.outBits
const (
	recB1   = 1 << 5
	recB2   = 1 << 6
	recWide = 1 << 7
	// recOutS, of afterKind: the outcome is the run's string x
	recOutS = 1 << 7
)

func (e *evRec) wide() bool         { return e.outBits&recWide != 0 }
func (e *evRec) event() EventName   { return recEvents[e.evBefore&31] }
func (e *evRec) before() string     { return recStates[e.evBefore>>5] }
func (e *evRec) after() string      { return recStates[e.afterKind&7] }
func (e *evRec) kind() detailKind   { return detailKind(e.afterKind >> 3 & 15) }
func (e *evRec) outcomeCode() uint8 { return e.outBits & 31 }
func (e *evRec) ref() uint16 {
	if e.afterKind&recOutS != 0 {
		return 0
	}
	return e.x
}

// recEvents are the event names an evRec codes (code i+1 is
// recEvents[i]): those of eventIndex, in its order, then the harness's
// and the system's own.
var recEvents = append(append([]EventName(nil), AllEvents...), EvNoticeReceive,
	EvWorkerCrash, EvWarn, EvClaim, EvStop, evWorld)

// recToolCommit is tool.commit's code.
var recToolCommit = recEventCode(EvToolCommit)

// recStates are the workflow states an evRec codes, in recStateCode's
// order.
var recStates = []string{stateCreated, stateRunning, stateCheckpointed, stateWaitingForTool,
	stateFailed, stateRecovering, stateResumed, stateCompleted}

func init() {
	// the codes' widths in evRec
	if len(recEvents) > 32 || len(recStates) > 8 || len(recOutcomes) > 31 || dHead > 15 {
		panic("model: an evRec code outgrew its bits")
	}
	for i := range recEvents {
		if recEventCode(recEvents[i]) != i {
			panic("model: recEventCode out of step with recEvents at " + string(recEvents[i]))
		}
		if i <= len(AllEvents) && eventIndex(recEvents[i]) != i || i > len(AllEvents) && eventIndex(recEvents[i]) >= 0 {
			panic("model: recEventCode out of step with eventIndex at " + string(recEvents[i]))
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
	case evWorld:
		return len(AllEvents) + 5
	}
	return -1
}

func recStateCode(s string) int {
	switch s {
	case stateCreated:
		return 0
	case stateRunning:
		return 1
	case stateCheckpointed:
		return 2
	case stateWaitingForTool:
		return 3
	case stateFailed:
		return 4
	case stateRecovering:
		return 5
	case stateResumed:
		return 6
	case stateCompleted:
		return 7
	}
	return -1
}

// recOutcomes are the outcomes an evRec codes (code i+1 is
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
	// dVersion: "version n1", and ", fetched at n2 ms" when b1 (a policy
	// replica's kept copy)
	dVersion
	// dEligible: "s1: eligible b1"
	dEligible
	// dSubject: "subject s1"
	dSubject
	// dCapability: "capability s1", and ", cached as of n1" when b1
	dCapability
	// dCommit: "s1 key s2 replayed b1 receipt b2" ("s1 sent without an
	// idempotency key, replayed b1 receipt b2" for an empty s2)
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
		if d.b1 {
			return "version " + strconv.FormatInt(d.n1, 10) + ", fetched at " + strconv.FormatInt(d.n2, 10) + " ms"
		}
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
		if d.s2 == "" {
			// production code's keyless commit (the model's provider
			// refuses one)
			return d.s1 + " sent without an idempotency key, replayed " + strconv.FormatBool(d.b1) + " receipt " + strconv.FormatBool(d.b2)
		}
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

// recorder is a detailed run's timeline while it is recorded: the record
// and the strings it names, handed to the Result at the end of the run.
type recorder struct {
	recs []evRec
	strs []string
	wide []Event
	// lastTask and lastTaskIdx intern the current task's id: most events
	// name the task of the one before
	lastTask    string
	lastTaskIdx uint16
	// seen holds, at a slot of a string's address and length, the
	// index among the run's strings (0-based) of the last string stored
	// there (see str)
	seen [recSeen]uint16
	// the lengths of the last record handed to a Result, the next run's
	// sizes
	recsCap, strsCap, wideCap int
	// stName and outName are the state and the outcome coded last, and
	// stCode and outCode their codes: most events have the state and
	// outcome of the one before
	stName, outName string
	stCode, outCode int
}

// sameStr reports whether a and b are the same string in memory (the
// same bytes, then; different strings of equal bytes are not the same).
func sameStr(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// stateCode is recStateCode, read from the last state coded when s is
// that string.
func (c *recorder) stateCode(s string) int {
	if !sameStr(s, c.stName) {
		c.stName, c.stCode = s, recStateCode(s)
	}
	return c.stCode
}

// outcomeCode is recOutcomeCode, read from the last outcome coded when
// s is that string.
func (c *recorder) outcomeCode(s string) int {
	if !sameStr(s, c.outName) {
		c.outName, c.outCode = s, recOutcomeCode(s)
	}
	return c.outCode
}

// startIn begins a run's record in recs and strs, empty storage of the
// run's own.
func (c *recorder) startIn(recs []evRec, strs []string) {
	c.recs, c.strs = recs, strs
	c.wide = nil
	c.lastTask, c.lastTaskIdx = "", 0
	c.seen = [recSeen]uint16{}
}

// take hands the record to t and forgets it.
func (c *recorder) take(t *timeline, runID string) {
	t.recs, t.strs, t.wide, t.runID = c.recs, c.strs, c.wide, runID
	c.recsCap, c.strsCap, c.wideCap = len(c.recs), len(c.strs), len(c.wide)
	c.recs, c.strs, c.wide = nil, nil, nil
	c.lastTask, c.lastTaskIdx = "", 0
}

// recSeen is the number of slots of recorder.seen (a power of two).
const recSeen = 64

// str returns the index of s among the run's strings, storing it unless
// it is "" or already stored (the same bytes: most strings are the same
// task id, capability or tool as a little earlier), which the slot of
// its length and outer bytes in seen tells when no other string took the
// slot since the run started. The record is a function of the strings'
// bytes alone, never of where they lie in memory. ok is false when the
// index would not fit.
func (c *recorder) str(s string) (i uint16, ok bool) {
	if s == "" {
		return 0, true
	}
	h := (uint(len(s))*31 ^ uint(s[0])*7 ^ uint(s[len(s)-1])) & (recSeen - 1)
	if j := int(c.seen[h]); j < len(c.strs) && c.strs[j] == s {
		return uint16(j + 1), true
	}
	if len(c.strs) >= 1<<16-1 {
		return 0, false
	}
	c.seen[h] = uint16(len(c.strs))
	c.strs = append(c.strs, s)
	return uint16(len(c.strs)), true
}

// taskStr is str for the task's id.
func (c *recorder) taskStr(s string) (uint16, bool) {
	if s != "" && sameStr(s, c.lastTask) {
		return c.lastTaskIdx, true
	}
	i, ok := c.str(s)
	if ok {
		c.lastTask, c.lastTaskIdx = s, i
	}
	return i, ok
}

// addWide records e whole.
func (c *recorder) addWide(e Event) {
	if c.wide == nil {
		// sized as the last run's: the Result takes it, so a run grown
		// by doubling left about as many bytes again behind it
		c.wide = make([]Event, 0, max(c.wideCap, 4))
	}
	c.wide = append(c.wide, e)
	c.recs = append(c.recs, evRec{n1: int32(len(c.wide) - 1), outBits: recWide})
}

// compact appends the compact record of run ru's event (as recordD
// records it: the run's clock, task, attempt and checkpoint, ev's
// ordinal, fault and outcome, the detail d and the state after) and
// returns false, appending nothing, when the event does not fit (see
// evRec).
func (c *recorder) compact(ru *run, ev EventName, ordinal int, fault, outcome string, d *detail, after string) bool {
	var r evRec
	evc := ru.crossIdx
	if !sameStr(string(ev), string(recEvents[evc])) { // not the crossing just entered
		evc = recEventCode(ev)
	}
	tool := ""
	if evc == recToolCommit {
		tool = ru.commitTool
	}
	at, retry, deadline := ru.recordClock()
	ckSeq, worker, attempt := ru.ckSeq, ru.worker, ru.attempts
	bc, ac := c.stateCode(ru.state), c.stateCode(after)
	// each number fits its width when, offset by half the width's range,
	// it has no bit above the width
	const h32, h16 = 1 << 31, 1 << 15
	if evc < 0 || bc < 0 || ac < 0 ||
		(uint64(int64(at)+h32)|uint64(int64(deadline)+h32)|uint64(d.n1+h32))>>32 != 0 ||
		(uint64(int64(retry)+h16)|uint64(int64(ckSeq)+h16)|uint64(d.n2+h16)|uint64(int64(ordinal)+h16)|
			uint64(int64(worker)+h16)|uint64(int64(attempt)+h16))>>16 != 0 {
		return false
	}
	r.at, r.deadline, r.n1 = int32(at), int32(deadline), int32(d.n1)
	r.retry, r.ckSeq, r.n2, r.ordinal, r.worker, r.attempt = int16(retry), int16(ckSeq), int16(d.n2), int16(ordinal), int16(worker), int16(attempt)
	r.evBefore, r.afterKind = uint8(evc)|uint8(bc)<<5, uint8(ac)|uint8(d.kind)<<3
	if d.b1 {
		r.outBits |= recB1
	}
	if d.b2 {
		r.outBits |= recB2
	}
	ok := true
	var k bool
	if outcome != "" {
		if o := c.outcomeCode(outcome); o >= 0 {
			r.outBits |= uint8(o + 1)
		} else {
			r.x, k = c.str(outcome)
			r.afterKind |= recOutS
			ok = ok && k
		}
	}
	r.task, k = c.taskStr(ru.task.ID)
	ok = ok && k
	if fault != "" {
		r.fault, k = c.str(fault)
		ok = ok && k
	}
	if tool != "" {
		r.tool, k = c.str(tool)
		ok = ok && k
	}
	if d.s1 != "" {
		r.s1, k = c.str(d.s1)
		ok = ok && k
	}
	if d.s2 != "" {
		r.s2, k = c.str(d.s2)
		ok = ok && k
	}
	if ok {
		c.recs = append(c.recs, r)
	}
	return ok
}

// str returns the run's string i (0 is "").
func (t *timeline) str(i uint16) string {
	if i == 0 {
		return ""
	}
	return t.strs[i-1]
}

func (t *timeline) detail(e *evRec) string {
	d := detail{kind: e.kind(), b1: e.outBits&recB1 != 0, b2: e.outBits&recB2 != 0, s1: t.str(e.s1), s2: t.str(e.s2), n1: int64(e.n1), n2: int64(e.n2)}
	return d.text()
}

func (t *timeline) outcome(e *evRec) string {
	if e.afterKind&recOutS != 0 {
		return t.str(e.x)
	}
	if o := e.outcomeCode(); o > 0 {
		return recOutcomes[o-1]
	}
	return ""
}

// event returns the full i-th event.
func (t *timeline) event(i int) Event {
	e := &t.recs[i]
	if e.wide() {
		w := t.wide[e.n1]
		w.RunID = t.runID
		return w
	}
	ev := e.event()
	return Event{
		RunID: t.runID, Seq: i + 1, At: Millis(e.at), StateBefore: e.before(), StateAfter: e.after(),
		Actor: actorOf(ev), Event: ev, Tool: t.str(e.tool), Ordinal: int(e.ordinal), Task: t.str(e.task),
		Worker: int(e.worker), FaultID: t.str(e.fault), Attempt: int(e.attempt), CheckpointSeq: int(e.ckSeq),
		RetryRemaining: int(e.retry), DeadlineRemainingMs: Millis(e.deadline), EvidenceRef: t.str(e.ref()),
		Outcome: t.outcome(e), Detail: t.detail(e),
	}
}

// build returns the full events of the record.
func (t *timeline) build() []Event {
	t.once.Do(func() {
		out := make([]Event, len(t.recs))
		for i := range t.recs {
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
	case tl.t.recs != nil:
		return len(tl.t.recs)
	}
	return len(tl.t.events)
}

// Name returns the event name of the i-th event (0-based, seq i+1)
// without building the events; it panics when i is out of range, as an
// index of Events does.
func (tl Timeline) Name(i int) EventName {
	t := tl.t
	switch {
	case t.recs == nil:
		return t.events[i].Event
	case t.recs[i].wide():
		return t.wide[t.recs[i].n1].Event
	}
	return t.recs[i].event()
}

// EventIndex returns, without comparing names, the i-th event's (0-based)
// position in AllEvents, len(AllEvents) for
// EvNoticeReceive, -1 for any other event; it panics when i is out of
// range, as Name does.
func (tl Timeline) EventIndex(i int) int {
	t := tl.t
	if t.recs == nil || t.recs[i].wide() {
		return eventIndex(tl.Name(i))
	}
	if c := int(t.recs[i].evBefore & 31); c <= len(AllEvents) {
		return c // recEventCode is eventIndex up to EvNoticeReceive
	}
	return -1
}

// Ordinal returns the ordinal of the i-th event (0-based), as Name does.
func (tl Timeline) Ordinal(i int) int {
	t := tl.t
	switch {
	case t.recs == nil:
		return t.events[i].Ordinal
	case t.recs[i].wide():
		return t.wide[t.recs[i].n1].Ordinal
	}
	return int(t.recs[i].ordinal)
}

// Task returns the task of the i-th event (0-based), as Name does.
func (tl Timeline) Task(i int) string {
	t := tl.t
	switch {
	case t.recs == nil:
		return t.events[i].Task
	case t.recs[i].wide():
		return t.wide[t.recs[i].n1].Task
	}
	return t.str(t.recs[i].task)
}

// Detail returns the detail of the i-th event (0-based), as Name does;
// without building the events, it formats that one detail again on every
// call.
func (tl Timeline) Detail(i int) string {
	t := tl.t
	switch {
	case t.recs == nil:
		return t.events[i].Detail
	case t.recs[i].wide():
		return t.wide[t.recs[i].n1].Detail
	}
	return t.detail(&t.recs[i])
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
	e := &c.recs[len(c.recs)-1]
	if !e.wide() {
		if i, ok := c.str(ref); ok && e.afterKind&recOutS == 0 {
			e.x = i
			return
		}
		// the reference does not fit: the event is kept whole
		w := (&timeline{recs: c.recs, strs: c.strs}).event(len(c.recs) - 1)
		w.RunID = ""
		c.wide = append(c.wide, w)
		*e = evRec{n1: int32(len(c.wide) - 1), outBits: recWide}
	}
	c.wide[e.n1].EvidenceRef = ref
}
