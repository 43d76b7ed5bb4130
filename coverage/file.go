package coverage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// Version is the version of the coverage file format this package
// writes. Version 2 added each system's record ("systems": its runs, the
// events they crossed, its not-applicable boundaries and replay template)
// and the system of each kept schedule; a version-1 file still reads, to
// the Data it always held (no systems, no schedule's system). Version 3
// added a system's concurrent runs, the kinds it enacts and its
// not-applicable key patterns; a version-2 system reads as drawing every
// modifier and enacting every kind.
const Version = 3

// The file's JSON shape. Pointers mark fields that must be present.
// Fields marked "v2" are not in version 1; a version-1 file that has one
// is refused.
type fileJSON struct {
	Version        *int                        `json:"version"`
	Runs           *int                        `json:"runs"`
	NotAdjudicated *int                        `json:"not_adjudicated"`
	Systems        *map[string]json.RawMessage `json:"systems,omitempty"` // v2
	Keys           *map[string]json.RawMessage `json:"keys"`
	Unattributed   []json.RawMessage           `json:"unattributed,omitempty"`
}

type systemJSON struct {
	Runs          *int              `json:"runs"`
	Traced        *int              `json:"traced_runs"`
	Crossed       []model.EventName `json:"crossed"`
	NotApplicable []model.Boundary  `json:"not_applicable"`
	Replay        string            `json:"replay,omitempty"`
	// v3
	Concurrent        *int              `json:"concurrent_runs,omitempty"`
	Enacts            []string          `json:"enacts,omitempty"`
	NotApplicableKeys map[string]string `json:"not_applicable_keys,omitempty"`
	Undrawn           []string          `json:"undrawn_kinds,omitempty"`
}

type entryJSON struct {
	Visits          *int              `json:"visits"`
	NotReached      *int              `json:"not_reached"`
	NotFired        *int              `json:"not_fired"`
	Schedule        json.RawMessage   `json:"schedule,omitempty"`
	System          *string           `json:"system,omitempty"` // v2
	Counterexamples []json.RawMessage `json:"counterexamples,omitempty"`
}

type cxJSON struct {
	Invariant string          `json:"invariant"`
	Count     *int            `json:"count"`
	FirstSeq  int             `json:"first_seq"`
	Event     model.EventName `json:"event"`
	Detail    string          `json:"detail"`
	Schedule  json.RawMessage `json:"schedule"`
	System    *string         `json:"system,omitempty"` // v2
}

// strp returns &s, or nil for "" (an omitted field).
func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func intp(v int) *int { return &v }

// Write writes d as indented JSON with a trailing newline, always in the
// current Version: keys and systems sorted, a system's lists too,
// "replay" omitted for a system that declared none and "system" for a
// schedule of unknown system, schedules in model.Format's canonical form
// (docs/formats.md shows the file). The output is a function of d alone.
func (d *Data) Write(w io.Writer) error {
	keys := map[string]json.RawMessage{}
	for k, e := range d.Keys {
		ej := entryJSON{Visits: intp(e.Visits), NotReached: intp(e.NotReached), NotFired: intp(e.NotFired)}
		if e.Schedule != nil {
			ej.Schedule, ej.System = model.Format(e.Schedule), strp(e.System)
		}
		for _, c := range e.Counterexamples {
			ej.Counterexamples = append(ej.Counterexamples, cxRaw(c))
		}
		b, err := json.Marshal(ej)
		if err != nil {
			return fmt.Errorf("coverage: writing key %s: %w", k, err)
		}
		keys[k.String()] = b
	}
	systems := map[string]json.RawMessage{}
	for n, r := range d.Systems {
		sj := systemJSON{Runs: intp(r.Runs), Traced: intp(r.Traced), Crossed: union(nil, r.Crossed), NotApplicable: union(nil, r.NotApplicable), Replay: r.Replay,
			Concurrent: intp(r.Concurrent), Enacts: r.Enacts, NotApplicableKeys: r.NotApplicableKeys, Undrawn: r.Undrawn}
		if r.Legacy {
			sj.Concurrent = nil // unknown: a version-2 record's runs, read as drawing every modifier
		}
		if sj.Crossed == nil {
			sj.Crossed = []model.EventName{}
		}
		if sj.NotApplicable == nil {
			sj.NotApplicable = []model.Boundary{}
		}
		b, err := json.Marshal(sj)
		if err != nil {
			return fmt.Errorf("coverage: writing system %s: %w", n, err)
		}
		systems[n] = b
	}
	f := fileJSON{Version: intp(Version), Runs: intp(d.Runs), NotAdjudicated: intp(d.NotAdjudicated), Systems: &systems, Keys: &keys}
	for _, c := range d.Unattributed {
		f.Unattributed = append(f.Unattributed, cxRaw(c))
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("coverage: writing: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func cxRaw(c Counterexample) json.RawMessage {
	b, err := json.Marshal(cxJSON{Invariant: c.Invariant, Count: intp(c.Count), FirstSeq: c.FirstSeq,
		Event: c.Event, Detail: c.Detail, Schedule: model.Format(c.Schedule), System: strp(c.System)})
	if err != nil {
		panic("coverage: encoding a counterexample: " + err.Error()) // plain data: cannot fail
	}
	return b
}

// strict decodes data into v strictly (package strictjson).
func strict(data []byte, v any) error { return strictjson.Decode(data, v) }

// Read decodes a coverage file strictly (package strictjson: keys exactly
// as documented and each once, at every level), at most
// fileio.CoverageLimit bytes, versions 1 and 2. Its error names the
// problem and where: a missing, unknown or misspelt field, a count out of
// range, a schedule that does not parse or lacks its key's fault, an
// invalid name, event, boundary or replay template, or a system the file
// does not list (docs/coverage.md, "The Go API", lists every rule).
func Read(r io.Reader) (*Data, error) {
	data, err := io.ReadAll(io.LimitReader(r, fileio.CoverageLimit+1))
	if err != nil {
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	if len(data) > fileio.CoverageLimit {
		return nil, fmt.Errorf("coverage file: larger than the limit of %d MiB", fileio.CoverageLimit>>20)
	}
	if err := strictjson.Validate(data); err != nil {
		if !strings.HasPrefix(err.Error(), "malformed JSON") {
			err = fmt.Errorf("malformed JSON: %w", err)
		}
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	var v struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	if v.Version == nil {
		return nil, fmt.Errorf(`coverage file: missing "version" (want %d)`, Version)
	}
	if *v.Version != Version && *v.Version != 1 && *v.Version != 2 {
		return nil, fmt.Errorf("coverage file: unsupported version %d (want %d, 2 or 1)", *v.Version, Version)
	}
	v2 := *v.Version == 2
	v1 := *v.Version == 1
	var f fileJSON
	if err := strict(data, &f); err != nil {
		return nil, fmt.Errorf("coverage file: %w", err)
	}
	switch {
	case v1 && f.Systems != nil:
		return nil, errors.New(`coverage file: "systems" is a field of version 2, not of version 1`)
	case !v1 && f.Systems == nil:
		return nil, errors.New(`coverage file: missing "systems" (an empty object is allowed)`)
	case f.Runs == nil:
		return nil, errors.New(`coverage file: missing "runs"`)
	case f.NotAdjudicated == nil:
		return nil, errors.New(`coverage file: missing "not_adjudicated"`)
	case f.Keys == nil:
		return nil, errors.New(`coverage file: missing "keys" (an empty object is allowed)`)
	case *f.Runs < 0:
		return nil, fmt.Errorf(`coverage file: "runs" is %d, below 0`, *f.Runs)
	case *f.NotAdjudicated < 0 || *f.NotAdjudicated > *f.Runs:
		return nil, fmt.Errorf(`coverage file: "not_adjudicated" is %d, outside 0..runs (%d)`, *f.NotAdjudicated, *f.Runs)
	}
	d := &Data{Runs: *f.Runs, NotAdjudicated: *f.NotAdjudicated, Keys: map[Key]*Entry{}}
	if f.Systems != nil {
		sum := 0
		for n, raw := range *f.Systems {
			r, err := readSystem(n, raw, v2)
			if err != nil {
				return nil, fmt.Errorf("coverage file: systems[%q]: %w", n, err)
			}
			if d.Systems == nil {
				d.Systems = map[string]*systemRecord{}
			}
			d.Systems[n] = r
			sum += r.Runs
		}
		if sum > d.Runs || sum < 0 {
			return nil, fmt.Errorf(`coverage file: the systems' runs add up to %d, more than "runs" (%d)`, sum, d.Runs)
		}
	}
	known := func(at string, sys *string) (string, error) {
		switch {
		case sys == nil:
			return "", nil
		case v1:
			return "", fmt.Errorf(`%s"system" is a field of version 2, not of version 1`, at)
		case d.Systems[*sys] == nil:
			return "", fmt.Errorf(`%s"system" %q is not one of the file's "systems"`, at, *sys)
		}
		return *sys, nil
	}
	for ks, raw := range *f.Keys {
		k, err := ParseKey(ks)
		if err != nil {
			return nil, fmt.Errorf("coverage file: keys: %w", err)
		}
		e, err := readEntry(k, raw, known)
		if err != nil {
			return nil, fmt.Errorf("coverage file: keys[%q]: %w", ks, err)
		}
		d.Keys[k] = e
	}
	d.Unattributed, err = readCounterexamples(f.Unattributed, known)
	if err != nil {
		return nil, fmt.Errorf("coverage file: unattributed%w", err)
	}
	return d, nil
}

// readSystem decodes one system's record.
func readSystem(name string, raw json.RawMessage, v2 bool) (*systemRecord, error) {
	if err := checkSystemName(name); err != nil {
		return nil, err
	}
	var sj systemJSON
	if err := strict(raw, &sj); err != nil {
		return nil, err
	}
	switch {
	case sj.Runs == nil:
		return nil, errors.New(`missing "runs"`)
	case *sj.Runs < 1:
		return nil, fmt.Errorf(`"runs" is %d, below 1 (a system is listed only when a run of it was recorded)`, *sj.Runs)
	case sj.Traced == nil:
		return nil, errors.New(`missing "traced_runs"`)
	case *sj.Traced < 0 || *sj.Traced > *sj.Runs:
		return nil, fmt.Errorf(`"traced_runs" is %d, outside 0..runs (%d)`, *sj.Traced, *sj.Runs)
	case sj.Crossed == nil:
		return nil, errors.New(`missing "crossed" (an empty list is allowed)`)
	case *sj.Traced == 0 && len(sj.Crossed) > 0:
		return nil, errors.New(`crossed events but no traced run`)
	case sj.NotApplicable == nil:
		return nil, errors.New(`missing "not_applicable" (an empty list is allowed)`)
	case v2 && (sj.Concurrent != nil || sj.Enacts != nil || sj.NotApplicableKeys != nil || sj.Undrawn != nil):
		return nil, errors.New(`"concurrent_runs", "enacts", "not_applicable_keys" and "undrawn_kinds" are fields of version 3, not of version 2`)
	case !v2 && sj.Concurrent != nil && (*sj.Concurrent < 0 || *sj.Concurrent > *sj.Runs):
		return nil, fmt.Errorf(`"concurrent_runs" is %d, outside 0..runs (%d)`, *sj.Concurrent, *sj.Runs)
	}
	if err := checkEnacts(Default(), sj.Enacts); err != nil {
		return nil, err
	}
	if err := checkUndrawn(sj.Undrawn); err != nil {
		return nil, err
	}
	if err := checkNotApplicableKeys(nil, sj.NotApplicableKeys); err != nil {
		return nil, err
	}
	for i, e := range sj.Crossed {
		if err := checkEventName(e); err != nil {
			return nil, fmt.Errorf("crossed: %w", err)
		}
		if slices.Contains(sj.Crossed[:i], e) {
			return nil, fmt.Errorf("crossed: event %q listed twice", e)
		}
	}
	if err := checkNotApplicable(sj.NotApplicable); err != nil {
		return nil, err
	}
	if sj.Replay != "" {
		if err := checkReplayTemplate(sj.Replay); err != nil {
			return nil, err
		}
	}
	r := &systemRecord{Runs: *sj.Runs, Traced: *sj.Traced, Crossed: union(nil, sj.Crossed), NotApplicable: union(nil, sj.NotApplicable), Replay: sj.Replay,
		Legacy: sj.Concurrent == nil, NotApplicableKeys: sj.NotApplicableKeys}
	if sj.Concurrent != nil {
		r.Concurrent = *sj.Concurrent
	}
	if len(sj.Enacts) > 0 {
		r.Enacts = union(nil, sj.Enacts)
	}
	if len(sj.Undrawn) > 0 {
		r.Undrawn = union(nil, sj.Undrawn)
	}
	return r, nil
}

func readEntry(k Key, raw json.RawMessage, known func(string, *string) (string, error)) (*Entry, error) {
	var ej entryJSON
	if err := strict(raw, &ej); err != nil {
		return nil, err
	}
	sys, err := known("", ej.System)
	if err != nil {
		return nil, err
	}
	if ej.System != nil && len(ej.Schedule) == 0 {
		return nil, errors.New(`a "system" but no "schedule"`)
	}
	for _, f := range []struct {
		name string
		p    *int
	}{{"visits", ej.Visits}, {"not_reached", ej.NotReached}, {"not_fired", ej.NotFired}} {
		if f.p == nil {
			return nil, fmt.Errorf("missing %q", f.name)
		}
		if *f.p < 0 {
			return nil, fmt.Errorf("%q is %d, below 0", f.name, *f.p)
		}
	}
	e := &Entry{Visits: *ej.Visits, NotReached: *ej.NotReached, NotFired: *ej.NotFired}
	if e.Visits+e.NotReached+e.NotFired == 0 {
		return nil, errors.New("every count is 0 (a key is listed only when a fault was scheduled under it)")
	}
	switch {
	case e.Visits > 0 && len(ej.Schedule) == 0:
		return nil, fmt.Errorf(`%d visits but no "schedule" to replay them`, e.Visits)
	case e.Visits == 0 && len(ej.Schedule) > 0:
		return nil, errors.New(`a "schedule" but no visit`)
	case e.Visits == 0 && len(ej.Counterexamples) > 0:
		return nil, errors.New("counterexamples under a key with no visit")
	}
	if len(ej.Schedule) > 0 {
		s, err := model.ParseSchedule(ej.Schedule)
		if err != nil {
			return nil, err
		}
		if !hasKey(s, k) {
			return nil, errors.New("its schedule has no fault of this key")
		}
		e.Schedule, e.System = s, sys
	}
	if e.Counterexamples, err = readCounterexamples(ej.Counterexamples, known); err != nil {
		return nil, fmt.Errorf("counterexamples%w", err)
	}
	for _, c := range e.Counterexamples {
		if !hasKey(c.Schedule, k) {
			return nil, fmt.Errorf("counterexample for %s: its schedule has no fault of this key", c.Invariant)
		}
	}
	return e, nil
}

// hasKey reports whether s schedules a fault whose kind has key k.
func hasKey(s *model.Schedule, k Key) bool {
	for _, f := range s.Faults {
		if spec, err := model.Spec(f.Kind); err == nil {
			if c := f.Correlated(); c != "" {
				spec.Correlation = c
			}
			if keyOf(spec) == k {
				return true
			}
		}
	}
	return false
}

// readCounterexamples decodes a counterexample list; errors start with
// "[i]: " so the caller can prefix the field name.
func readCounterexamples(raws []json.RawMessage, known func(string, *string) (string, error)) ([]Counterexample, error) {
	var out []Counterexample
	for i, raw := range raws {
		at := "[" + strconv.Itoa(i) + "]: "
		var cj cxJSON
		if err := strict(raw, &cj); err != nil {
			return nil, errors.New(at + err.Error())
		}
		sys, err := known(at, cj.System)
		if err != nil {
			return nil, err
		}
		switch {
		case cj.Invariant == "":
			return nil, errors.New(at + `missing "invariant"`)
		case CheckInvariantName(cj.Invariant) != nil:
			return nil, errors.New(at + CheckInvariantName(cj.Invariant).Error())
		case cj.Count == nil:
			return nil, errors.New(at + `missing "count"`)
		case *cj.Count < 1:
			return nil, fmt.Errorf("%s\"count\" is %d, below 1", at, *cj.Count)
		case len(cj.Schedule) == 0:
			return nil, errors.New(at + `missing "schedule"`)
		case cj.FirstSeq < 0:
			return nil, fmt.Errorf("%s\"first_seq\" is %d, below 0", at, cj.FirstSeq)
		}
		s, err := model.ParseSchedule(cj.Schedule)
		if err != nil {
			return nil, errors.New(at + err.Error())
		}
		for _, c := range out {
			if c.Invariant == cj.Invariant {
				return nil, fmt.Errorf("%sinvariant %q listed twice", at, cj.Invariant)
			}
		}
		out = append(out, Counterexample{Violation: model.Violation{Invariant: cj.Invariant, FirstSeq: cj.FirstSeq, Event: cj.Event,
			Detail: cj.Detail}, Count: *cj.Count, Schedule: s, System: sys})
	}
	slices.SortFunc(out, func(a, b Counterexample) int { return strings.Compare(a.Invariant, b.Invariant) })
	return out, nil
}

// ReadFile reads the coverage file at path (see Read); errors name the
// path. A path that is not a regular file, or a file over
// fileio.CoverageLimit, is refused before it is read (an error matching
// fileio.ErrBadInput); a missing file gives an error matching
// fs.ErrNotExist.
func ReadFile(path string) (*Data, error) {
	b, err := fileio.ReadFile(path, fileio.CoverageLimit)
	if err != nil {
		return nil, err
	}
	d, err := Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// WriteFile writes d to path atomically (see Data.Write for the format)
// while holding the lock every writer of a coverage file takes (the file
// PATH.lock beside it, left in place), so it never interleaves with a
// MergeIntoFile or Tracker.FlushTo of another goroutine or process. The
// new file has mode 0644, is synced with its directory, and replaces the
// target of a symbolic link at path rather than the link. Errors name
// path (never a temporary or lock file); path is then unchanged.
func WriteFile(path string, d *Data) error {
	b, err := encode(d)
	if err != nil {
		return err
	}
	unlock, err := fileio.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	return fileio.WriteAtomic(path, b)
}

// encode returns d as Write writes it.
func encode(d *Data) ([]byte, error) {
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MergeIntoFile merges d into the coverage file at path, creating it when
// it does not exist. It holds path's lock (see WriteFile) from the read to
// the atomic rewrite, so concurrent merges and flushes, in this process or
// others, each apply in turn and no update is lost. It returns an error
// naming path for a file that does not read (see Read), a merge that
// would overflow a count (see CheckMerge), or a file that cannot be
// locked or written; the file is then unchanged.
func MergeIntoFile(path string, d *Data) error {
	return fileio.Update(path, fileio.CoverageLimit, func(old []byte) ([]byte, error) {
		base := &Data{Keys: map[Key]*Entry{}}
		if old != nil {
			var err error
			if base, err = Read(bytes.NewReader(old)); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if err := CheckMerge(base, d); err != nil {
			return nil, fmt.Errorf("merging into %s: %w", path, err)
		}
		return encode(Merge(base, d))
	})
}

// CheckMerge returns nil when every count of Merge(a, b) fits in an int
// and the two agree on every system both hold, and otherwise an error
// naming the first problem: a count (runs, not_adjudicated, each system's
// runs, then each key in order, then the unattributed counterexamples)
// whose sum would overflow, with both addends, or a system whose
// not-applicable boundaries or replay template differ between a and b
// (one system, two declarations: rename one, or record both again under
// one declaration). Merge itself does not check: a merge that overflows
// would wrap to a negative count that Read refuses, and differing
// declarations are united (the smaller replay template kept).
func CheckMerge(a, b *Data) error {
	if err := checkSum(`"runs"`, a.Runs, b.Runs); err != nil {
		return err
	}
	if err := checkSum(`"not_adjudicated"`, a.NotAdjudicated, b.NotAdjudicated); err != nil {
		return err
	}
	for _, n := range slices.Sorted(maps.Keys(b.Systems)) {
		ar, br := a.Systems[n], b.Systems[n]
		if ar == nil {
			continue
		}
		at := fmt.Sprintf("systems[%q]", n)
		if err := checkSum(at+`."runs"`, ar.Runs, br.Runs); err != nil {
			return err
		}
		if err := checkSum(at+`."traced_runs"`, ar.Traced, br.Traced); err != nil {
			return err
		}
		if x, y := union(nil, ar.NotApplicable), union(nil, br.NotApplicable); !slices.Equal(x, y) {
			return fmt.Errorf("%s: not-applicable boundaries differ: %s and %s", at, list(x), list(y))
		}
		if (ar.Enacts == nil) != (br.Enacts == nil) || !slices.Equal(ar.Enacts, br.Enacts) {
			return fmt.Errorf("%s: the kinds the system enacts differ: %s and %s", at, list(ar.Enacts), list(br.Enacts))
		}
		if !maps.Equal(ar.NotApplicableKeys, br.NotApplicableKeys) {
			return patternsDiffer(at, ar.NotApplicableKeys, br.NotApplicableKeys)
		}
	}
	keys := slices.SortedFunc(maps.Keys(b.Keys), func(x, y Key) int { return strings.Compare(x.String(), y.String()) })
	for _, k := range keys {
		ae, be := a.Keys[k], b.Keys[k]
		if ae == nil {
			continue
		}
		at := fmt.Sprintf("keys[%q]", k.String())
		for _, c := range []struct {
			name string
			x, y int
		}{{"visits", ae.Visits, be.Visits}, {"not_reached", ae.NotReached, be.NotReached}, {"not_fired", ae.NotFired, be.NotFired}} {
			if err := checkSum(fmt.Sprintf("%s.%q", at, c.name), c.x, c.y); err != nil {
				return err
			}
		}
		if err := checkCounts(at+".counterexamples", ae.Counterexamples, be.Counterexamples); err != nil {
			return err
		}
	}
	return checkCounts("unattributed", a.Unattributed, b.Unattributed)
}

// patternsDiffer is CheckMerge's error for one system whose not-applicable
// key patterns differ between x (the file's) and y (the runs merged in):
// each pattern only one side declares and each pattern whose reason alone
// changed, with both reasons, and what to do.
func patternsDiffer(at string, x, y map[string]string) error {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(x)) {
		switch why, ok := y[p]; {
		case !ok:
			parts = append(parts, fmt.Sprintf("%s only in the record merged into (%q)", p, x[p]))
		case why != x[p]:
			parts = append(parts, fmt.Sprintf("%s: only the reason changed, %q in the record merged into and %q in the one merged in", p, x[p], why))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(y)) {
		if _, ok := x[p]; !ok {
			parts = append(parts, fmt.Sprintf("%s only in the one merged in (%q)", p, y[p]))
		}
	}
	return fmt.Errorf("%s: not-applicable key patterns differ: %s; the two were recorded under different declarations of the system (model.Definition.NotApplicableKeys), which one file cannot hold (bad input, exit 2): delete the file, or record into a new one, to start afresh under the new declaration",
		at, strings.Join(parts, "; "))
}

// list writes a list of boundaries as "[a, b]" ("[]" for none).
func list[T ~string](bs []T) string { return "[" + strings.Join(strs(bs), ", ") + "]" }

// checkCounts checks the sum of the counts of each invariant in both xs
// and ys.
func checkCounts(at string, xs, ys []Counterexample) error {
	for _, y := range ys {
		for _, x := range xs {
			if x.Invariant == y.Invariant {
				if err := checkSum(fmt.Sprintf("%s[%q].\"count\"", at, y.Invariant), x.Count, y.Count); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkSum(name string, x, y int) error {
	if (y > 0 && x > math.MaxInt-y) || (y < 0 && x < math.MinInt-y) {
		return fmt.Errorf("%s would overflow: %d + %d is beyond the largest count, %d", name, x, y, math.MaxInt)
	}
	return nil
}
