// Package lab serves faultline's lab: the paper's interactive assay (seed
// 000, "Executable lab: typed fault-transfer assay") as one local web page
// driven by the real model, with a small JSON API behind it.
//
// The page lets a reader toggle the seven controls (or pick the baseline,
// typed or fail_closed profile), choose a fault family (all, one domain or
// one mode), a number of trials and a seed, run the assay, and read the six
// meters (containment, recovery, outcome proof, useful service, unsafe
// escape, unproved release), the per-domain table and bar charts, the
// release assessment with its reasons, the interpretation boundary and the
// "faultline assay" command line that reproduces the run, and the run's
// region of the release envelope with its reasons. Its timeline viewer
// replays a pasted or uploaded schedule file. Its coverage view shows the
// coverage of the session's runs: the heatmaps and the unvisited keys with
// their reasons. Every figure comes from [assay.Run], [assay.Tally] and
// the reference system's Definition.Replay, the code behind "faultline
// assay", "faultline audit" and "faultline replay", and from
// [coverage.NewReport], the code behind
// "faultline coverage report".
//
// A session is the server's life: the server keeps one [coverage.Tracker],
// which counts every trial of every answered assay run and every answered
// replay (counts per coverage key, not runs, so its memory is bounded by
// the catalogue and the invariants), until POST /api/coverage/reset.
//
// Entry points:
//
//   - [New] returns a [Server], an [http.Handler], bounded by [Options]
//     ([MaxTrials], [MaxBodyBytes] and [RunTimeout] by default);
//   - [AssayRequest] and [AssayResponse] are the shapes of POST /api/assay;
//   - [ReplayResponse] is the shape of POST /api/replay;
//   - GET /api/coverage answers a [coverage.Report].
//
// Routes:
//
//	GET  /            the page: HTML, CSS, JS and inline SVG in one response,
//	                  embedded in the binary; it fetches nothing from any
//	                  other host (its Content-Security-Policy forbids it)
//	POST /api/assay   body: an AssayRequest; answer: an AssayResponse
//	POST /api/replay  body: a schedule file; answer: a ReplayResponse
//	GET  /api/coverage           answer: the session's coverage.Report
//	POST /api/coverage/reset     empty the session's coverage; answer: the
//	                             empty coverage.Report
//
// Every bad input is answered 400 with {"error": MESSAGE}, the message
// naming the problem; a body over the size bound 413; a body that does not
// arrive within the read bound 408; a run that would exceed the time
// bound, or that waits too long for the run before it, 503. At most one
// run executes at a time.
//
// Request bodies are strict JSON: an object whose keys are the documented
// field names, each once and in their exact case, with no null value
// (omit a field for its default), no unknown field and nothing after the
// object; anything else is a 400 naming the key or the problem.
//
// Cross-site requests: every POST must come from the lab's own page or
// from a client that is not a browser page, because any page the user
// opens could otherwise reset the session's coverage or queue runs. The
// lab's own origin is the scheme it is served on (https with TLS, else
// http) and the request's Host. A POST is refused 403 when its
// Sec-Fetch-Site header is present and is neither "same-origin" nor
// "none", or when its Origin header is present and is not the lab's own
// origin ("null" included); it is refused 415 unless its Content-Type is
// application/json (parameters such as charset allowed). A request with
// neither Origin nor Sec-Fetch-Site (curl, a test's http.Client) passes
// these checks: browsers send Origin on every cross-origin POST, and a
// page cannot send application/json to another origin without a CORS
// preflight, which the lab never grants (it answers OPTIONS 405 with no
// CORS header).
//
// Serving: [Server.HTTPServer] returns the *http.Server to serve the lab
// with, with read, write and idle timeouts ([ReadHeaderTimeout],
// [ReadTimeout], [IdleTimeout], a write timeout derived from the run
// bound) and a header bound ([MaxHeaderBytes]), so slow or idle clients
// cannot hold connections open.
package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

// Bounds of the API, the defaults of [Options].
const (
	// MaxTrials is the largest trial count one assay request may ask for
	// (a count, inclusive): about half a second of both cores of a small
	// machine through the full model.
	MaxTrials = 200000
	// MaxBodyBytes is the largest request body, in bytes (1 MiB).
	MaxBodyBytes = 1 << 20
	// RunTimeout is how long a request may wait for its run, including the
	// wait for a run already in progress (wall-clock time).
	RunTimeout = 20 * time.Second
)

// Bounds of a connection, set on the server [Server.HTTPServer] returns.
const (
	// ReadHeaderTimeout bounds the wait for a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds the wait for a whole request, headers and body
	// (1 MiB at most); a body not read in time is answered 408.
	ReadTimeout = 15 * time.Second
	// IdleTimeout bounds how long a keep-alive connection waits for its
	// next request.
	IdleTimeout = 30 * time.Second
	// WriteMargin is added to ReadTimeout and the run bound
	// (Options.Timeout) to make the write timeout: the longest a request
	// may take from its headers to the end of its answer. Answers are
	// written once, after the run; nothing streams.
	WriteMargin = 10 * time.Second
	// MaxHeaderBytes bounds a request's headers, in bytes (64 KiB).
	MaxHeaderBytes = 64 << 10
)

// Defaults of an [AssayRequest], equal to the flag defaults of
// "faultline assay".
const (
	DefaultProfile = copperfin.ProfileTyped
	DefaultFault   = "all"
	DefaultTrials  = 2000
	DefaultSeed    = 188
)

// Options bound the server. The zero value takes the defaults named on
// each field.
type Options struct {
	// MaxTrials bounds the trials of one assay (default [MaxTrials]).
	MaxTrials int
	// MaxBodyBytes bounds a request body in bytes (default [MaxBodyBytes]).
	MaxBodyBytes int64
	// Timeout bounds a request's wait for its run (default [RunTimeout]).
	Timeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxTrials <= 0 {
		o.MaxTrials = MaxTrials
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = MaxBodyBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = RunTimeout
	}
	return o
}

// Server is the lab's http.Handler. It is safe for concurrent use; runs are
// serialised, one at a time.
type Server struct {
	opts  Options
	mux   *http.ServeMux
	page  []byte
	csp   string
	slots chan struct{}
	// conn are the connection bounds HTTPServer sets (the constants above;
	// the tests shorten them).
	conn connBounds

	// universe is the coverage universe of the catalogue (coverage.Default).
	universe *coverage.Universe
	// covMu guards cov, the session's coverage, replaced on reset.
	covMu sync.Mutex
	cov   *coverage.Tracker
}

// New returns a lab server with opts (zero fields take their defaults). It
// panics only if the embedded page fails to render, which is a build
// defect, not user input.
func New(opts Options) *Server {
	s := &Server{opts: opts.withDefaults(), mux: http.NewServeMux(), slots: make(chan struct{}, 1), universe: coverage.Default()}
	s.cov = newTracker(s.universe)
	var err error
	if s.page, s.csp, err = renderPage(s.opts); err != nil {
		panic(fmt.Sprintf("lab: rendering the embedded page: %v", err))
	}
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.HandleFunc("POST /api/assay", s.guard(s.serveAssay))
	s.mux.HandleFunc("POST /api/replay", s.guard(s.serveReplay))
	s.mux.HandleFunc("GET /api/coverage", s.serveCoverage)
	s.mux.HandleFunc("POST /api/coverage/reset", s.guard(s.serveCoverageReset))
	s.conn = connBounds{readHeader: ReadHeaderTimeout, read: ReadTimeout, idle: IdleTimeout,
		write: ReadTimeout + s.opts.Timeout + WriteMargin, maxHeader: MaxHeaderBytes}
	return s
}

// connBounds are the timeouts (wall-clock) and header bound (bytes) of a
// server's connections.
type connBounds struct {
	readHeader, read, write, idle time.Duration
	maxHeader                     int
}

// HTTPServer returns an *http.Server that serves h (nil: s itself; give a
// handler that wraps s to add, say, a Host check) with the lab's
// connection bounds: ReadHeaderTimeout, ReadTimeout, IdleTimeout,
// MaxHeaderBytes, and a WriteTimeout of ReadTimeout plus the run bound
// plus WriteMargin, so a run that uses its whole time bound is still
// answered. The caller sets Addr or calls Serve with a listener.
func (s *Server) HTTPServer(h http.Handler) *http.Server {
	if h == nil {
		h = s
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: s.conn.readHeader, ReadTimeout: s.conn.read,
		WriteTimeout: s.conn.write, IdleTimeout: s.conn.idle, MaxHeaderBytes: s.conn.maxHeader}
}

// guard refuses a cross-site POST (403) or one whose body is not declared
// application/json (415), as the package comment says, before h reads
// anything.
func (s *Server) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := sameOrigin(r); err != nil {
			s.fail(w, err)
			return
		}
		if err := jsonContent(r); err != nil {
			s.fail(w, err)
			return
		}
		h(w, r)
	}
}

// ownOrigin is the origin the lab serves r on: scheme and Host.
func ownOrigin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// sameOrigin checks r's Sec-Fetch-Site and Origin headers.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Values("Sec-Fetch-Site"); len(site) > 0 {
		if len(site) > 1 || site[0] != "same-origin" && site[0] != "none" {
			return &statusError{code: http.StatusForbidden, msg: fmt.Sprintf(
				"cross-site request refused: Sec-Fetch-Site is %q; the lab answers a POST only from its own page (same-origin) or a request the user made directly (none)", strings.Join(site, ", "))}
		}
	}
	origin := r.Header.Values("Origin")
	if len(origin) == 0 {
		return nil
	}
	own := ownOrigin(r)
	if len(origin) > 1 || !sameOriginURL(origin[0], own) {
		return &statusError{code: http.StatusForbidden, msg: fmt.Sprintf(
			"cross-site request refused: Origin %q is not the lab's own origin %q", strings.Join(origin, ", "), own)}
	}
	return nil
}

// sameOriginURL reports whether origin (an Origin header: scheme://host
// with an optional port, nothing else) equals own.
func sameOriginURL(origin, own string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Opaque != "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Host == "" {
		return false
	}
	o, _ := url.Parse(own)
	return strings.EqualFold(u.Scheme, o.Scheme) && strings.EqualFold(u.Host, o.Host)
}

// jsonContent requires r's Content-Type to be application/json.
func jsonContent(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return &statusError{code: http.StatusUnsupportedMediaType, msg: "Content-Type missing: a POST to the lab must be sent as application/json"}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return &statusError{code: http.StatusUnsupportedMediaType, msg: fmt.Sprintf("Content-Type %q refused: a POST to the lab must be sent as application/json", ct)}
	}
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", s.csp)
	w.Write(s.page)
}

// AssayRequest is the body of POST /api/assay: the settings of one
// "faultline assay" run. Unknown fields are refused. A missing field takes
// the flag default of "faultline assay" (profile typed, fault all, trials
// 2000, seed 188).
type AssayRequest struct {
	// Profile names a profile: baseline, typed or fail_closed. Give it or
	// Controls, not both.
	Profile *string `json:"profile,omitempty"`
	// Controls lists controls by name (an empty list is no control); the
	// run is labelled "custom", as "faultline assay --controls" labels it.
	Controls *[]string `json:"controls,omitempty"`
	// Fault is "all" or one fault domain (identity, context, tool, state,
	// evidence).
	Fault *string `json:"fault,omitempty"`
	// Mode, when not empty, is the one fault kind every trial injects; it
	// must lie in Fault's domain (any domain with Fault "all").
	Mode string `json:"mode,omitempty"`
	// Trials is the number of trials, 1 to the server's MaxTrials.
	Trials *int `json:"trials,omitempty"`
	// Seed seeds the trial generator (taken mod 2^32).
	Seed *int64 `json:"seed,omitempty"`
	// Compat is "" or "paper188" (draw only the paper's ten modes).
	Compat string `json:"compat,omitempty"`
}

// AssayResponse is the answer of POST /api/assay.
type AssayResponse struct {
	// Assay is exactly the object "faultline assay --json" prints for the
	// same settings (profile, controls, seed, fault_domains, by_domain,
	// overall, assessment, reasons, interpretation).
	Assay map[string]any `json:"assay"`
	// Command is the command line that reproduces the run, and Args its
	// arguments after "faultline".
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Boundary is the interpretation boundary printed under the table.
	Boundary string `json:"boundary"`
	// Envelope places the run's trials in a region of the default release
	// envelope (assay.DefaultEnvelope) with every check and the reasons,
	// by the code that places a profile in "faultline audit"
	// (assay.Tally): for the audit's setting (a profile, fault all, 2000
	// trials, seed 188, no mode) it equals the audit's placement of that
	// profile over configuration "all".
	Envelope assay.Placement `json:"envelope"`
}

// ReplayResponse is the answer of POST /api/replay.
type ReplayResponse struct {
	// Record is exactly the object "faultline replay FILE --json" prints:
	// the run's evidence record (model.RunRecord).
	Record model.RunRecord `json:"record"`
	// Result is the full result the timeline viewer draws (run_id,
	// schedule, timeline, faults with what the injector saw, invariants
	// with where each became false, claims, terms, verdicts).
	Result *model.Result `json:"result"`
	// Held is true when the run passed as "faultline replay" exits 0:
	// every invariant held and every scheduled fault was reached and fired
	// (model.Result.Err is nil). A run that held every invariant but
	// tested less than its schedule is not held.
	Held bool `json:"held"`
	// Coverage says how the replay counted in the session's coverage.
	Coverage ReplayCoverage `json:"coverage"`
}

// ReplayCoverage is how one replay counted in the session's coverage: a
// row per coverage key its faults name (in report order), or, when the run
// could not be recorded, why not.
type ReplayCoverage struct {
	// Recorded is false when coverage could not count the run (a world
	// event, say, has no key in the catalogue's universe); Reason says why.
	Recorded bool   `json:"recorded"`
	Reason   string `json:"reason,omitempty"`
	// Keys are the keys of the replay's faults, each visited or not.
	Keys []ReplayKey `json:"keys"`
}

// ReplayKey is one coverage key of a replay: Visited when one of its
// faults reached its boundary and fired in the adjudicated run; otherwise
// Status and Reason say why not (the coverage report's status and reason:
// "scheduled_not_reached", the event never occurred or the fault had
// nothing to act on).
type ReplayKey struct {
	Key     string `json:"key"`
	Visited bool   `json:"visited"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
}

// badRequest is an input problem answered 400.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func bad(format string, args ...any) error {
	return &badRequest{msg: fmt.Sprintf(format, args...)}
}

// statusError is a refusal answered with its own status code.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

// Errors of the run bound, answered 503.
var (
	errBusy    = errors.New("another run is still in progress; try again when it has finished")
	errTimeout = errors.New("the run exceeded the time bound")
)

func (s *Server) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var br *badRequest
	var se *statusError
	var mb *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &br):
		code = http.StatusBadRequest
	case errors.As(err, &se):
		code = se.code
	case errors.As(err, &mb):
		code = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("request body exceeds the limit of %d bytes", mb.Limit)
	case errors.As(err, &ne) && ne.Timeout():
		code = http.StatusRequestTimeout
		err = fmt.Errorf("request body not received within the read bound of %s", s.conn.read)
	case errors.Is(err, errBusy):
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	case errors.Is(err, errTimeout):
		code = http.StatusServiceUnavailable
		err = fmt.Errorf("%w of %s; ask for fewer trials", err, s.opts.Timeout)
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	if err := paper.Encode(&b, v); err != nil {
		code = http.StatusInternalServerError
		b.Reset()
		paper.Encode(&b, map[string]string{"error": err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// readBody reads the request body within the size bound.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
}

// run runs f within the run bound: it waits for the run before it and for
// f at most the server's timeout. A run that outlasts its request keeps its
// slot until it ends, so runs never pile up; its result is dropped.
func (s *Server) run(ctx context.Context, f func() (any, error)) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	select {
	case s.slots <- struct{}{}:
	default:
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, errBusy
		}
	}
	type answer struct {
		v   any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() { <-s.slots }()
		v, err := f()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.v, a.err
	case <-ctx.Done():
		return nil, errTimeout
	}
}

func (s *Server) serveAssay(w http.ResponseWriter, r *http.Request) {
	data, err := s.readBody(w, r)
	if err != nil {
		s.fail(w, err)
		return
	}
	cfg, args, err := s.parseAssay(data)
	if err != nil {
		s.fail(w, err)
		return
	}
	// Every trial is counted twice: per kind for the release placement and
	// per coverage key for the session, which takes the run's coverage only
	// when the run is answered.
	cs, err := copperfin.ControlsOf(model.Config{System: cfg.System})
	if err != nil {
		s.fail(w, err)
		return
	}
	names := []string{}
	for _, c := range cs.List() {
		names = append(names, string(c))
	}
	tally := assay.NewTally(cfg.Profile, names)
	cov := newTracker(s.universe)
	cfg.Observe = func(res *model.Result) error {
		if err := tally.Observe(res); err != nil {
			return err
		}
		return cov.Record(res)
	}
	v, err := s.run(r.Context(), func() (any, error) { return assay.Run(copperfin.Definition(), cfg) })
	if errors.Is(err, assay.ErrBadConfig) {
		err = bad("%s", strings.TrimPrefix(err.Error(), assay.ErrBadConfig.Error()+": "))
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	s.addCoverage(cov.Data())
	writeJSON(w, http.StatusOK, AssayResponse{Assay: paper.Object(v.(*assay.Report)),
		Command: "faultline " + shellJoin(args), Args: args, Boundary: paper.Boundary,
		Envelope: tally.Place(assay.DefaultEnvelope())})
}

// addCoverage merges a run's coverage into the session's.
func (s *Server) addCoverage(d *coverage.Data) {
	s.covMu.Lock()
	defer s.covMu.Unlock()
	s.cov.Add(d)
}

// newTracker returns an empty tracker of the reference system's runs
// over u.
func newTracker(u *coverage.Universe) *coverage.Tracker {
	t, err := coverage.NewTracker(u, copperfin.Definition())
	if err != nil {
		panic(err) // a constant, valid definition
	}
	return t
}

// reportOptions replay the reference system's schedules with the
// faultline command, the lab's.
var reportOptions = coverage.ReportOptions{Replay: map[string]string{"": "faultline replay %s"}}

// coverageReport returns the report of the session's coverage.
func (s *Server) coverageReport() *coverage.Report {
	s.covMu.Lock()
	d := s.cov.Data()
	s.covMu.Unlock()
	return coverage.NewReport(s.universe, d, reportOptions)
}

func (s *Server) serveCoverage(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.coverageReport())
}

func (s *Server) serveCoverageReset(w http.ResponseWriter, r *http.Request) {
	data, err := s.readBody(w, r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := decodeStrict(data, &struct{}{}); err != nil {
			s.fail(w, err)
			return
		}
	}
	s.covMu.Lock()
	s.cov = newTracker(s.universe)
	s.covMu.Unlock()
	writeJSON(w, http.StatusOK, s.coverageReport())
}

// replayCoverage records res in a tracker of its own and says how it
// counted; the caller merges the tracker into the session's.
func (s *Server) replayCoverage(res *model.Result) (ReplayCoverage, *coverage.Tracker) {
	t := newTracker(s.universe)
	if err := t.Record(res); err != nil {
		return ReplayCoverage{Reason: "not counted in the session's coverage: " + strings.TrimPrefix(err.Error(), "coverage: record: "), Keys: []ReplayKey{}}, nil
	}
	rc := ReplayCoverage{Recorded: true, Keys: []ReplayKey{}}
	rep := coverage.NewReport(s.universe, t.Data(), reportOptions)
	switch {
	case rep.Summary.NotAdjudicated > 0:
		rc.Reason = "counted as a run the oracle did not adjudicate, so no key is visited"
	case rep.Summary.Visits == 0 && rep.Summary.FaultsNotReached == 0 && rep.Summary.FaultsNotFired == 0:
		rc.Reason = "counted as a run; its world events have no coverage key"
	}
	for _, k := range rep.Keys {
		if k.Visits+k.NotReached+k.NotFired == 0 {
			continue // this run scheduled no fault of the key
		}
		visited := k.Status == coverage.StatusHeld || k.Status == coverage.StatusViolated
		rc.Keys = append(rc.Keys, ReplayKey{Key: k.Key, Visited: visited, Status: k.Status, Reason: k.Reason})
	}
	return rc, t
}

// decodeStrict decodes one JSON object into v, a pointer to a struct,
// refusing unknown fields, trailing data, a null body, a duplicated key, a
// key in the wrong case and a null value, with errors that name the
// problem.
func decodeStrict(data []byte, v any) error {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return bad("request: the body starts with a UTF-8 byte-order mark; send it without one")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return bad("request: empty body: want a JSON object")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return bad("request: truncated JSON: the object is not closed")
		case errors.As(err, &se):
			return bad("request: malformed JSON at byte %d: %v", se.Offset, se)
		case errors.As(err, &te) && te.Field == "":
			return bad("request: want a JSON object, got JSON %s", te.Value)
		case errors.As(err, &te):
			return bad("request: field %q: want %s, got JSON %s", te.Field, goKind(te.Type), te.Value)
		}
		return bad("request: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("request: trailing data after the JSON object")
	}
	return checkKeys(data, reflect.TypeOf(v).Elem())
}

// checkKeys walks the JSON value in data, already decoded into a value of
// struct type t, and refuses what encoding/json lets through: a null body,
// a key given twice (the last would win), a key that matches a field's
// name only without regard to case, and a null value (which would take the
// field's default silently).
func checkKeys(data []byte, t reflect.Type) error {
	var names []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return bad("request: %v", err)
	}
	if tok == nil {
		return bad("request: the body is null: want a JSON object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return bad("request: want a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad("request: %v", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return bad("request: duplicated key %q: give each field once", key)
		}
		seen[key] = true
		if !slices.Contains(names, key) {
			for _, n := range names {
				if strings.EqualFold(n, key) {
					return bad("request: key %q is in the wrong case: the field is %q", key, n)
				}
			}
			return bad("request: unknown field %q", key)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad("request: %v", err)
		}
		if string(raw) == "null" {
			return bad("request: field %q is null: give a value, or omit the field for its default", key)
		}
	}
	return nil
}

// goKind names a Go type as a JSON value.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(goKind(t.Elem()), "a ") + "s"
	}
	return t.String()
}

// parseAssay validates an assay request and returns its config and the
// "faultline assay" arguments that reproduce it.
func (s *Server) parseAssay(data []byte) (assay.Config, []string, error) {
	var req AssayRequest
	if err := decodeStrict(data, &req); err != nil {
		return assay.Config{}, nil, err
	}
	cfg := assay.Config{}
	args := []string{"assay"}
	switch req.Compat {
	case "":
	case "paper188":
		cfg.Compat = true
		args = append(args, "--compat", "paper188")
	default:
		return cfg, nil, bad("compat: unknown compatibility target %q (valid: paper188, or empty)", req.Compat)
	}
	switch {
	case req.Profile != nil && req.Controls != nil:
		return cfg, nil, bad(`give "profile" or "controls", not both`)
	case req.Controls != nil:
		cs, err := copperfin.ParseControls(*req.Controls)
		if err != nil {
			return cfg, nil, bad("controls: %v", err)
		}
		cfg.Profile, cfg.System = "custom", copperfin.ConfigOfControls(cs).System
		names := make([]string, 0, len(cs.List()))
		for _, c := range cs.List() {
			names = append(names, string(c))
		}
		args = append(args, "--controls", strings.Join(names, ","))
	default:
		p := DefaultProfile
		if req.Profile != nil {
			p = copperfin.Profile(*req.Profile)
		}
		cs, err := copperfin.ProfileControls(p)
		if err != nil {
			return cfg, nil, bad("profile: %v", err)
		}
		cfg.Profile, cfg.System = string(p), copperfin.ConfigOfControls(cs).System
		args = append(args, "--profile", string(p))
	}
	fault := DefaultFault
	if req.Fault != nil {
		fault = *req.Fault
	}
	cfg.Domains = model.Domains
	if fault != "all" {
		d, err := model.ParseDomain(fault)
		if err != nil {
			return cfg, nil, bad("fault: %v (or all)", err)
		}
		cfg.Domains = []model.Domain{d}
	}
	args = append(args, "--fault", fault)
	if req.Mode != "" {
		spec, err := model.Spec(req.Mode)
		if err != nil {
			return cfg, nil, bad("mode: %v", err)
		}
		if fault != "all" && string(spec.Domain) != fault {
			return cfg, nil, bad("mode: fault kind %q is in domain %s, not in the selected fault domain %s", req.Mode, spec.Domain, fault)
		}
		cfg.Kinds = []string{req.Mode}
		args = append(args, "--mode", req.Mode)
	}
	cfg.Trials = DefaultTrials
	if req.Trials != nil {
		cfg.Trials = *req.Trials
	}
	if cfg.Trials < 1 || cfg.Trials > s.opts.MaxTrials {
		return cfg, nil, bad("trials must be between 1 and %d, got %d", s.opts.MaxTrials, cfg.Trials)
	}
	cfg.Seed = DefaultSeed
	if req.Seed != nil {
		cfg.Seed = *req.Seed
	}
	args = append(args, "--trials", strconv.Itoa(cfg.Trials))
	if cfg.Seed < 0 {
		args = append(args, "--seed="+strconv.FormatInt(cfg.Seed, 10))
	} else {
		args = append(args, "--seed", strconv.FormatInt(cfg.Seed, 10))
	}
	return cfg, args, nil
}

func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	data, err := s.readBody(w, r)
	if err != nil {
		s.fail(w, err)
		return
	}
	sched, err := model.ParseSchedule(data)
	if err != nil {
		s.fail(w, bad("%v", err))
		return
	}
	v, err := s.run(r.Context(), func() (any, error) {
		res, err := copperfin.Definition().Replay(sched)
		if err != nil {
			return nil, bad("%v", err)
		}
		return res, nil
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	res := v.(*model.Result)
	rc, t := s.replayCoverage(res)
	if t != nil {
		s.addCoverage(t.Data())
	}
	writeJSON(w, http.StatusOK, ReplayResponse{Record: res.Record(), Result: res, Held: res.Err() == nil, Coverage: rc})
}

// shellJoin joins args for a POSIX shell; only an empty argument or one
// with characters outside [A-Za-z0-9_,.=:/+-] is quoted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		safe := a != ""
		for _, c := range a {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_,.=:/+-", c)) {
				safe = false
			}
		}
		if safe {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
