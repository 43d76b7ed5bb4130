package fuzz

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/model"
)

// Scope says where the decoder may place a fault of each kind. The kinds
// are those of model.Catalogue() followed by the world events of
// model.WorldEvents() (and, under a config with notices, the kinds of
// model.NoticeKinds()), each with its default target (the task's own
// capability, policy, record or every memory key; a clock advance of
// 1000 ms). Where a kind's sites are comes from the events the system
// crosses in its clean run under the decoder's config (see NewDecoder),
// or, with WithCatalogueSites, from the catalogue's designed placements
// and MaxOrdinal.
type Scope int

const (
	// ScopeDesigned places each kind at its default placement on the
	// clean run (model.Place: its own event at its designed ordinal, or
	// the run's last crossing of it when the run crossed it fewer times;
	// with WithCatalogueSites, FaultSpec.Event and FaultSpec.Ordinal
	// as designed), in any order and combination. This is the default.
	ScopeDesigned Scope = iota
	// ScopeOrdinals places each kind at every crossing of its own event
	// in the clean run, ordinals 1 to the run's count (with
	// WithCatalogueSites, 1 to MaxOrdinal): the same fault at a later
	// occurrence of its boundary (a retry, a re-read, a resume).
	ScopeOrdinals
	// ScopeAnywhere places each kind at every crossing of every event it
	// can be injected at (model.Schedule.Validate accepts it) that the
	// clean run crossed (with WithCatalogueSites, ordinals 1 to
	// MaxOrdinal of every such event): a world event (a worker crash, a
	// revocation) at any crossing, as the exploration of package
	// properties draws them (the harness practice: a worker restart at
	// any point).
	ScopeAnywhere
)

// MaxOrdinal is the largest ordinal ScopeOrdinals and ScopeAnywhere place a
// fault at under WithCatalogueSites.
const MaxOrdinal = 3

// DefaultMaxFaults is the default number of faults in one decoded
// composition.
const DefaultMaxFaults = 4

// String returns "designed", "ordinals" or "anywhere".
func (s Scope) String() string {
	switch s {
	case ScopeDesigned:
		return "designed"
	case ScopeOrdinals:
		return "ordinals"
	case ScopeAnywhere:
		return "anywhere"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// ParseScope returns the scope named name, or an error naming it and the
// valid names.
func ParseScope(name string) (Scope, error) {
	switch name {
	case "designed":
		return ScopeDesigned, nil
	case "ordinals":
		return ScopeOrdinals, nil
	case "anywhere":
		return ScopeAnywhere, nil
	}
	return 0, fmt.Errorf("unknown scope %q (valid: designed, ordinals, anywhere)", name)
}

// Site is one place a fault can be injected: a kind at the Ordinal-th
// occurrence of Event.
type Site struct {
	Kind    string
	Event   model.EventName
	Ordinal int
}

// String is "kind@event#ordinal", e.g. "stale_policy@context.policy#2".
func (s Site) String() string { return fmt.Sprintf("%s@%s#%d", s.Kind, s.Event, s.Ordinal) }

// Option configures a Decoder. Options are built only by the With...
// functions of this package.
type Option func(*options)

type options struct {
	config    model.Config
	fixture   string
	def       *model.Definition
	scope     Scope
	maxFaults int
	system    *System
	catalogue bool
	notices   bool
	kinds     []string // nil: every kind
	// replayTest and failDir: where a failure is written and replayed
	// (target.go)
	replayTest, failDir string
	// bubble runs one run inside a testing/synctest bubble (ForProduction)
	bubble func(func())
}

// WithDefinition sets the system under test: the system d describes, its
// fixtures (WithFixture names one; the default is its first) and how its
// config's system part builds it (d.Factory). Required.
func WithDefinition(d *model.Definition) Option { return func(o *options) { o.def = d } }

// WithConfig makes every decoded schedule carry cfg (the system's own
// part, and the harness's budgets and join policy; its fixture is
// WithFixture's). Default: an empty system part ({}). A config the system
// refuses (for the reference system an unknown profile, control or
// mutant) makes NewDecoder return the system's error.
func WithConfig(cfg model.Config) Option { return func(o *options) { o.config = cfg } }

// WithFixture makes every decoded schedule run on the named fixture of the
// definition (for the reference system copperfin, the default, or
// copperfin-batch, three tasks). An unknown name makes NewDecoder return
// an error.
func WithFixture(name string) Option { return func(o *options) { o.fixture = name } }

// WithNotices has the provider send its asynchronous notices in every
// decoded schedule (the config's Notices, over WithConfig's) and adds
// the kinds of its notices (model.NoticeKinds) to the sites, after the
// world events, at the system's notice.receive crossings. A config with
// Notices set does the same. A system that never reads its notices
// crosses no notice.receive, so the notice kinds get no site there.
func WithNotices() Option { return func(o *options) { o.notices = true } }

// WithKinds limits the sites to the named kinds (catalogue kinds, world
// events, or kinds of the provider's notices: naming one of those turns
// the notices on, as WithNotices does), in site order whatever the
// order named. An unknown name makes NewDecoder return an error.
func WithKinds(kinds ...string) Option {
	return func(o *options) { o.kinds = append([]string{}, kinds...) }
}

// WithScope sets where faults are placed (default ScopeDesigned).
func WithScope(s Scope) Option { return func(o *options) { o.scope = s } }

// WithMaxFaults sets the largest number of faults in one composition, from
// 1 to 64 (default DefaultMaxFaults).
func WithMaxFaults(n int) Option { return func(o *options) { o.maxFaults = n } }

// WithCatalogueSites places the kinds at the catalogue's designed
// placements (FaultSpec.Event and Ordinal) and, outside ScopeDesigned, at
// ordinals 1 to MaxOrdinal, whatever the system crosses: the reference
// system's counts. It keeps the meaning of inputs encoded against that
// table (the reference system's fuzz corpus and counterexample files);
// any other system wants the default, sites from its own clean run.
func WithCatalogueSites() Option { return func(o *options) { o.catalogue = true } }

// WithSystem overrides the factory the definition builds (default: a
// System named after the definition, built by its Factory), for a variant
// of the system the definition's config cannot select.
func WithSystem(s System) Option { return func(o *options) { o.system = &s } }

// Decoder turns any byte string into a valid fault composition: a schedule
// of up to MaxFaults faults, each a kind of model.Catalogue(), a world
// event of model.WorldEvents() or, under a config with notices, a kind of
// model.NoticeKinds() at a Site of the decoder's scope, in order,
// under the decoder's config. It also runs schedules against its system
// (see Check). A Decoder is safe for concurrent use.
//
// The byte format: each fault takes one byte (two, big-endian, when the
// scope has more than 256 sites), whose value modulo the number of sites
// picks the site in Sites order; trailing bytes that make no whole fault,
// and bytes past MaxFaults faults, are ignored. The empty input is the
// fault-free run. Sites follow the catalogue and the system's clean run,
// so when kinds are added, or the system changes which events it
// crosses, the same bytes may decode to another composition: readable
// seeds belong in corpus/ as schedule files, which Encode turns into
// bytes.
type Decoder struct {
	config    model.Config
	kinds     []string // WithKinds's (nil: every kind)
	fixture   model.Fixture
	def       *model.Definition
	scope     Scope
	maxFaults int
	system    System
	sites     []Site
	width     int
	index     map[Site]int
	pool      sync.Pool
	reach     Reach
	// crossed: the events of the clean run the sites come from
	crossed []model.EventName
	// replayTest and failDir: see WithReplayTest and WithFailDir
	replayTest, failDir string
	// bubble: see ForProduction (nil: runs run directly)
	bubble func(func())
}

// NewDecoder returns a decoder with opts applied over the defaults (an
// empty system part, the definition's first fixture, ScopeDesigned,
// DefaultMaxFaults). It runs the system once without faults: unless
// WithCatalogueSites is given, to learn where its faults can sit (see
// Scope). It returns an error for a missing or invalid definition, a
// config the system refuses (the system's error), an unknown fixture or
// scope, a fault count out of range, a system without a name or factory,
// a harness error on the clean run, a definition whose runs check no
// invariant (its Builtin empty and no Invariants: every input would pass;
// the error wraps the clean run's *model.RunError, code 3), or a clean
// run that crosses no event any kind of the scope is placed at (the error
// names the events it did cross).
func NewDecoder(opts ...Option) (*Decoder, error) {
	o := options{maxFaults: DefaultMaxFaults}
	for _, opt := range opts {
		opt(&o)
	}
	if o.def == nil {
		return nil, errors.New("fuzz: no system definition (give WithDefinition)")
	}
	if err := o.def.Validate(); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	sys := System{Name: o.def.Name, New: o.def.Factory}
	if o.system != nil {
		sys = *o.system
	}
	d := &Decoder{scope: o.scope, maxFaults: o.maxFaults, system: sys, def: o.def, index: map[Site]int{},
		replayTest: o.replayTest, failDir: o.failDir, bubble: o.bubble}
	fx, err := o.def.Fixture(o.fixture)
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	for _, k := range o.kinds {
		sp, err := model.Spec(k)
		if err != nil {
			return nil, fmt.Errorf("fuzz: %w", err)
		}
		o.notices = o.notices || sp.Event == model.EvNoticeReceive
	}
	d.kinds = o.kinds
	d.config = o.config
	d.config.Notices = d.config.Notices || o.notices
	d.fixture, d.config.Fixture = fx, o.fixture
	if err := (&model.Schedule{Version: model.ScheduleVersion, Config: d.config, Faults: []model.FaultEntry{}}).Validate(); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	if o.maxFaults < 1 || o.maxFaults > 64 {
		return nil, fmt.Errorf("fuzz: max faults %d out of range (1 to 64)", o.maxFaults)
	}
	if sys.New == nil || sys.Name == "" {
		return nil, fmt.Errorf("fuzz: system %q has no name or no factory", sys.Name)
	}
	if _, err := sys.New(d.config); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	clean, err := d.Run(&model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: d.config, Faults: []model.FaultEntry{}})
	if err != nil {
		return nil, fmt.Errorf("fuzz: the clean run of %s: %w", d.system.Name, err)
	}
	if len(clean.Invariants) == 0 {
		// every decoded schedule runs under d.config, so it checks the
		// invariants the clean run checked: none; Result.Err's error says
		// so, as properties.Check refuses such a system
		return nil, fmt.Errorf("fuzz: no invariant would be checked in a run of %s, so every input would pass whatever the system does: %w", d.system.Name, clean.Err())
	}
	if o.catalogue {
		err = d.catalogueSites()
	} else {
		err = d.runSites(clean)
	}
	if err != nil {
		return nil, err
	}
	if len(d.sites) > 1<<16 {
		return nil, fmt.Errorf("fuzz: %d sites is more than two bytes can address", len(d.sites))
	}
	for i, s := range d.sites {
		// every site must be injectable
		if !fits(d.config, s.Kind, s.Event) {
			return nil, fmt.Errorf("fuzz: catalogue site %s cannot be injected", s)
		}
		d.index[s] = i
	}
	d.width = 1
	if len(d.sites) > 256 {
		d.width = 2
	}
	return d, nil
}

// catalogueSites sets the sites of WithCatalogueSites: the catalogue's
// designed placements and ordinals 1 to MaxOrdinal.
func (d *Decoder) catalogueSites() error {
	for _, spec := range d.specs() {
		switch d.scope {
		case ScopeDesigned:
			d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: spec.Ordinal})
		case ScopeOrdinals:
			for ord := 1; ord <= MaxOrdinal; ord++ {
				d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: ord})
			}
		case ScopeAnywhere:
			for _, ev := range d.events() {
				if !fits(d.config, spec.Kind, ev) {
					continue
				}
				for ord := 1; ord <= MaxOrdinal; ord++ {
					d.sites = append(d.sites, Site{Kind: spec.Kind, Event: ev, Ordinal: ord})
				}
			}
		default:
			return fmt.Errorf("fuzz: unknown scope %d", int(d.scope))
		}
	}
	return nil
}

// runSites sets the sites from clean, the run of the decoder's system
// under its config without faults: every site is a crossing that run
// made (see Scope).
// A later fault's sites are the clean run's too: a byte's meaning must
// not depend on the bytes before it, so an input keeps decoding to one
// schedule. The crossings only an earlier fault makes (a retry's second
// tool.commit, a resumed worker's checkpoint.load) are the rapid
// target's, whose generator places each fault in the run of the faults
// before it (Decoder.RapidProperty).
func (d *Decoder) runSites(clean *model.Result) error {
	switch d.scope {
	case ScopeDesigned, ScopeOrdinals, ScopeAnywhere:
	default:
		return fmt.Errorf("fuzz: unknown scope %d", int(d.scope))
	}
	counts := model.Crossings(clean)
	seen := map[model.EventName]bool{}
	for _, ev := range clean.Timeline.Events() {
		seen[ev.Event] = true
	}
	for _, ev := range allEvents {
		if seen[ev] {
			d.crossed = append(d.crossed, ev)
		}
	}
	for _, spec := range d.specs() {
		switch d.scope {
		case ScopeDesigned:
			if f, ok := model.Place(spec.Kind, clean); ok {
				d.sites = append(d.sites, Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal})
			}
		case ScopeOrdinals:
			for ord := 1; ord <= counts[spec.Event]; ord++ {
				d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: ord})
			}
		case ScopeAnywhere:
			for _, ev := range d.events() {
				if counts[ev] == 0 || !fits(d.config, spec.Kind, ev) {
					continue
				}
				for ord := 1; ord <= counts[ev]; ord++ {
					d.sites = append(d.sites, Site{Kind: spec.Kind, Event: ev, Ordinal: ord})
				}
			}
		}
	}
	if len(d.sites) == 0 {
		return fmt.Errorf("fuzz: the clean run of %s crosses no event a fault kind is placed at in scope %s (the events it crossed: %s)", d.system.Name, d.scope, eventList(d.crossed))
	}
	return nil
}

// eventList names events for messages, "(none)" for none.
func eventList(evs []model.EventName) string {
	if len(evs) == 0 {
		return "(none)"
	}
	names := make([]string, len(evs))
	for i, ev := range evs {
		names[i] = string(ev)
	}
	return strings.Join(names, ", ")
}

// kindSpecs are the kinds a decoder under cfg places, in site order: the
// catalogue's, the world events, and, under a config with notices
// (Config.Notices), the kinds of the provider's notices
// (model.NoticeKinds), which a config without them never places.
func kindSpecs(cfg model.Config) []model.FaultSpec {
	specs := append(model.Catalogue(), model.WorldEvents()...)
	if cfg.Notices {
		specs = append(specs, model.NoticeKinds()...)
	}
	return specs
}

// specs are the kinds the decoder places: kindSpecs of its config, only
// those WithKinds names.
func (d *Decoder) specs() []model.FaultSpec {
	specs := kindSpecs(d.config)
	if d.kinds != nil {
		specs = slices.DeleteFunc(specs, func(sp model.FaultSpec) bool { return !slices.Contains(d.kinds, sp.Kind) })
	}
	return specs
}

// events are the events the decoder places faults at: model.AllEvents,
// and notice.receive under a config with notices (WithCatalogueSites
// places at every one of them, crossed or not).
func (d *Decoder) events() []model.EventName {
	if d.config.Notices {
		return allEvents
	}
	return model.AllEvents
}

// allEvents are the events a fault may sit at, in site order:
// model.AllEvents, then notice.receive, which only a run with notices
// crosses.
var allEvents = append(append([]model.EventName(nil), model.AllEvents...), model.EvNoticeReceive)

// Crossed returns the events the system crossed in its clean run under
// the decoder's config, in the order of model.AllEvents (nil under
// WithCatalogueSites, which does not run it).
func (d *Decoder) Crossed() []model.EventName { return append([]model.EventName(nil), d.crossed...) }

// fits reports whether the schedule validator accepts kind at ev.
func fits(cfg model.Config, kind string, ev model.EventName) bool {
	s := model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: []model.FaultEntry{{Event: ev, Ordinal: 1, Kind: kind}}}
	return s.Validate() == nil
}

// Config returns the config every decoded schedule carries.
func (d *Decoder) Config() model.Config { return d.config }

// Fixture returns the workload every run starts from.
func (d *Decoder) Fixture() model.Fixture { return d.fixture }

// Scope returns the decoder's scope.
func (d *Decoder) Scope() Scope { return d.scope }

// MaxFaults returns the largest number of faults in one composition.
func (d *Decoder) MaxFaults() int { return d.maxFaults }

// System returns the system under test.
func (d *Decoder) System() System { return d.system }

// Sites returns the injection sites in decoding order: the catalogue's
// kinds in catalogue order, then the world events in their order, each at
// the events and ordinals of the scope (kinds whose events the clean run
// never crossed have none).
func (d *Decoder) Sites() []Site { return append([]Site(nil), d.sites...) }

// Decode returns the composition data encodes. It is total and
// deterministic: every input gives a schedule that model.Schedule.Validate
// accepts, and equal inputs give equal schedules. The schedule's seed
// label is "fuzz-" and the hex of the bytes that chose its faults.
func (d *Decoder) Decode(data []byte) *model.Schedule {
	n := min(len(data)/d.width, d.maxFaults)
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "fuzz-" + hex.EncodeToString(data[:n*d.width]),
		Config: d.config, Faults: make([]model.FaultEntry, 0, n)}
	for i := 0; i < n; i++ {
		v := int(data[i*d.width])
		if d.width == 2 {
			v = v<<8 | int(data[i*d.width+1])
		}
		site := d.sites[v%len(d.sites)]
		s.Faults = append(s.Faults, model.FaultEntry{Event: site.Event, Ordinal: site.Ordinal, Kind: site.Kind})
	}
	return s
}

// Encode returns the shortest bytes that Decode turns into s's faults, in
// order. It ignores s's seed label, config and fault ids. It returns an
// error naming the first fault whose kind, event and ordinal are not a
// site of the decoder's scope or that names a target or a tool, or a schedule with
// more than MaxFaults faults.
func (d *Decoder) Encode(s *model.Schedule) ([]byte, error) {
	if len(s.Faults) > d.maxFaults {
		return nil, fmt.Errorf("fuzz: %d faults, more than the decoder's %d", len(s.Faults), d.maxFaults)
	}
	out := make([]byte, 0, len(s.Faults)*d.width)
	for i, f := range s.Faults {
		site := Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal}
		if f.Target != "" {
			return nil, fmt.Errorf("fuzz: faults[%d] (%s) names the target %q; the decoder places default targets only", i, site, f.Target)
		}
		if f.Tool != "" {
			return nil, fmt.Errorf("fuzz: faults[%d] (%s) aims at the tool %q; the decoder's ordinals count every crossing", i, site, f.Tool)
		}
		v, ok := d.index[site]
		if !ok {
			return nil, fmt.Errorf("fuzz: faults[%d] (%s) is not a site of scope %s", i, site, d.scope)
		}
		if d.width == 2 {
			out = append(out, byte(v>>8))
		}
		out = append(out, byte(v))
	}
	return out, nil
}

// Schedule returns the schedule data stands for: the schedule file it is,
// when model.ParseSchedule accepts it (with that file's own config), and
// otherwise the composition Decode makes of it. Like Decode, it is total.
func (d *Decoder) Schedule(data []byte) *model.Schedule {
	if looksLikeJSON(data) {
		if s, err := model.ParseSchedule(data); err == nil {
			return s
		}
	}
	return d.Decode(data)
}

func looksLikeJSON(data []byte) bool {
	return strings.HasPrefix(strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n"), "{")
}
