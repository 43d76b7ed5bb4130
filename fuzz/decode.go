package fuzz

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/model"
)

// scope says where a decoder places each kind (WithScope, docs/fuzzing.md).
type scope int

const (
	// scopeDesigned: each kind at its default placement on the clean run
	// (model.Place), or at the catalogue's under WithCatalogueSites.
	scopeDesigned scope = iota
	// scopeOrdinals: each kind at every crossing of its own event.
	scopeOrdinals
	// scopeAnywhere: each kind at every crossing of every event it fits.
	scopeAnywhere
)

// maxOrdinal is the largest ordinal scopeOrdinals and scopeAnywhere place
// a fault at under WithCatalogueSites.
const maxOrdinal = 3

// defaultMaxFaults is the number of faults in one decoded composition
// unless WithMaxFaults says otherwise.
const defaultMaxFaults = 4

// String returns "designed", "ordinals" or "anywhere".
func (s scope) String() string {
	switch s {
	case scopeDesigned:
		return "designed"
	case scopeOrdinals:
		return "ordinals"
	case scopeAnywhere:
		return "anywhere"
	}
	return fmt.Sprintf("scope(%d)", int(s))
}

// parseScope returns the scope named name ("" is the default, designed),
// or an error naming it and the valid names.
func parseScope(name string) (scope, error) {
	switch name {
	case "", "designed":
		return scopeDesigned, nil
	case "ordinals":
		return scopeOrdinals, nil
	case "anywhere":
		return scopeAnywhere, nil
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

// Option configures a target or a decoder. Options are built only by the
// With functions of this package; one that does not apply is the entry's
// error.
type Option interface{ apply(*options) error }

type optionFunc func(*options) error

func (f optionFunc) apply(o *options) error { return f(o) }

type options struct {
	config    model.Config
	fixture   string
	scope     scope
	maxFaults int
	catalogue bool
	modifiers bool
	kinds     []string // nil: every kind
	// replayTest and failDir: where a failure is written and replayed
	// (target.go)
	replayTest, failDir string
}

// WithConfig makes every decoded schedule carry cfg (the system's own
// part, budgets, join policy, Notices; its fixture is WithFixture's).
// Default: an empty system part ({}). A config the system refuses is an
// error of the entry.
func WithConfig(cfg model.Config) Option {
	return optionFunc(func(o *options) error { o.config = cfg; return nil })
}

// WithFixture makes every decoded schedule run on the named fixture of the
// Definition (default: its first). An unknown name is an error.
func WithFixture(name string) Option {
	return optionFunc(func(o *options) error { o.fixture = name; return nil })
}

// WithKinds limits the sites to the named kinds (catalogue kinds, world
// events, or kinds of the provider's notices, which turns the notices on),
// in site order. An unknown name, or one the Definition's path cannot
// enact (outside its Enacts), is an error.
func WithKinds(kinds ...string) Option {
	return optionFunc(func(o *options) error { o.kinds = append([]string{}, kinds...); return nil })
}

// WithScope sets where faults are placed: "designed" (the default),
// "ordinals" or "anywhere" (docs/fuzzing.md). An unknown name is an error.
func WithScope(name string) Option {
	return optionFunc(func(o *options) (err error) { o.scope, err = parseScope(name); return err })
}

// WithMaxFaults sets the largest number of faults in one composition, from
// 1 to 64 (default 4).
func WithMaxFaults(n int) Option {
	return optionFunc(func(o *options) error {
		if n < 1 || n > 64 {
			return fmt.Errorf("max faults %d out of range (1 to 64)", n)
		}
		o.maxFaults = n
		return nil
	})
}

// WithCatalogueSites places the kinds at the catalogue's designed
// placements (and ordinals 1 to 3 outside "designed") whatever the system
// crosses, for inputs encoded against that table; any other system wants
// the default, sites from its own clean run.
func WithCatalogueSites() Option {
	return optionFunc(func(o *options) error { o.catalogue = true; return nil })
}

// WithModifiers lets the bytes pick correlation modifiers: each fault
// takes one byte more, after its site's, which picks none (0) or one of
// the modifiers its kind takes under the config (b mod 1+n: repeated with
// 2 crossings, persistent; synchronized where two workers or more run two
// tasks or more; shared where the tasks have two tenants or more).
// Without it a fault is its site's bytes alone, as before, so an existing
// corpus decodes to the same schedules.
func WithModifiers() Option {
	return optionFunc(func(o *options) error { o.modifiers = true; return nil })
}

// Decoder turns any byte string into a valid fault composition of its
// system's sites (Decode; the byte format is in docs/fuzzing.md) and runs
// schedules against the system (Check, Verify). It is safe for concurrent
// use.
type Decoder struct {
	def       *model.Definition
	config    model.Config
	kinds     []string // WithKinds's (nil: every kind)
	fixture   model.Fixture
	scope     scope
	maxFaults int
	catalogue bool
	sites     []Site
	width     int
	// mods are, under WithModifiers, the modifiers each kind takes under
	// the config (nil: no modifier byte)
	mods  map[string][]model.Correlation
	index map[Site]int
	pool  sync.Pool
	reach reach
	// crossed: the events of the clean run the sites come from
	crossed []model.EventName
	// replayTest and failDir: see WithReplayTest and WithFailDir
	replayTest, failDir string
	// bubble runs one run of production code in a testing/synctest
	// bubble (a Target's, see target.go; nil: runs run directly)
	bubble func(func())
}

// NewDecoder returns the decoder of the system def describes, after one
// clean run of it that places the sites. It refuses what every entry
// refuses (see prepare and start) and production code (def.Clock set),
// whose runs need a test's bubbles: use For or NewTarget for that.
func NewDecoder(def *model.Definition, opts ...Option) (*Decoder, error) {
	d, err := prepare(def, opts)
	if err != nil {
		return nil, err
	}
	if def.Clock != nil {
		return nil, fmt.Errorf("fuzz: %s is production code (its Definition has a Clock): each of its runs needs a testing/synctest bubble of a test, so give it to For or NewTarget", def.Name)
	}
	if err := d.start(); err != nil {
		return nil, err
	}
	return d, nil
}

// prepare is the first half of every entry's path (NewDecoder, NewTarget,
// For): it refuses what model.Definition.Check refuses (an invalid
// Definition, no invariant in scope) and options that do not apply to it
// (an unknown fixture, kind or scope, a fault count out of range, an
// invalid config), and runs no code of the system.
func prepare(def *model.Definition, opts []Option) (*Decoder, error) {
	if err := def.Validate(); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	o := options{maxFaults: defaultMaxFaults}
	for _, opt := range opts {
		if err := opt.apply(&o); err != nil {
			return nil, fmt.Errorf("fuzz: %w", err)
		}
	}
	d := &Decoder{def: def, scope: o.scope, maxFaults: o.maxFaults, catalogue: o.catalogue, index: map[Site]int{},
		replayTest: o.replayTest, failDir: o.failDir}
	fx, err := def.Fixture(o.fixture)
	if err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	if o.modifiers {
		d.mods = modifiersOf(o.config, fx)
	}
	notices := false
	for _, k := range o.kinds {
		sp, err := model.Spec(k)
		if err != nil {
			return nil, fmt.Errorf("fuzz: %w", err)
		}
		notices = notices || sp.Event == model.EvNoticeReceive
	}
	if err := catalog.CheckEnacted(def, o.kinds); err != nil {
		return nil, fmt.Errorf("fuzz: WithKinds: %w (exit 2)", err)
	}
	d.kinds = o.kinds
	d.config = o.config
	d.config.Notices = d.config.Notices || notices
	d.fixture, d.config.Fixture = fx, o.fixture
	if err := (&model.Schedule{Version: model.ScheduleVersion, Config: d.config, Faults: []model.FaultEntry{}}).Validate(); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	if err := def.Check(d.config, d.options()); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	return d, nil
}

// start is the second half: the clean run (in a bubble for production
// code), which builds the system under the config once. It refuses a
// config the system does not take and a run that crosses no event a kind
// of the scope is placed at.
func (d *Decoder) start() error {
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Config: d.config, Faults: []model.FaultEntry{}}
	var (
		clean          *model.Result
		cfgErr, runErr error
	)
	d.inRun(func() {
		factory, err := d.def.Factory(s.Config)
		if err != nil {
			cfgErr = err
			return
		}
		clean, runErr = model.NewHarness(d.fixture, d.options()).Run(factory, s)
	})
	if cfgErr != nil {
		return fmt.Errorf("fuzz: %w", cfgErr)
	}
	if runErr != nil {
		return fmt.Errorf("fuzz: the clean run of %s: %w", d.def.Name, runErr)
	}
	var err error
	if d.catalogue {
		err = d.catalogueSites()
	} else {
		err = d.runSites(clean)
	}
	if err != nil {
		return err
	}
	if len(d.sites) > 1<<16 {
		return fmt.Errorf("fuzz: %d sites is more than two bytes can address", len(d.sites))
	}
	for i, s := range d.sites {
		// every site must be injectable
		if !fits(d.config, s.Kind, s.Event) {
			return fmt.Errorf("fuzz: catalogue site %s cannot be injected", s)
		}
		d.index[s] = i
	}
	d.width = 1
	if len(d.sites) > 256 {
		d.width = 2
	}
	return nil
}

// catalogueSites sets the sites of WithCatalogueSites: the catalogue's
// designed placements and ordinals 1 to maxOrdinal.
func (d *Decoder) catalogueSites() error {
	for _, spec := range d.specs() {
		switch d.scope {
		case scopeDesigned:
			d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: spec.Ordinal})
		case scopeOrdinals:
			for ord := 1; ord <= maxOrdinal; ord++ {
				d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: ord})
			}
		case scopeAnywhere:
			for _, ev := range d.events() {
				if !fits(d.config, spec.Kind, ev) {
					continue
				}
				for ord := 1; ord <= maxOrdinal; ord++ {
					d.sites = append(d.sites, Site{Kind: spec.Kind, Event: ev, Ordinal: ord})
				}
			}
		}
	}
	return nil
}

// runSites sets the sites from clean, the run of the decoder's system
// under its config without faults: every site is a crossing that run
// made (docs/fuzzing.md).
// A later fault's sites are the clean run's too: a byte's meaning must
// not depend on the bytes before it, so an input keeps decoding to one
// schedule. The crossings only an earlier fault makes (a retry's second
// tool.commit, a resumed worker's checkpoint.load) are the rapid
// target's, whose generator places each fault in the run of the faults
// before it (Decoder.RapidProperty).
func (d *Decoder) runSites(clean *model.Result) error {
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
		case scopeDesigned:
			if f, ok := model.Place(spec.Kind, clean); ok {
				d.sites = append(d.sites, Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal})
			}
		case scopeOrdinals:
			for ord := 1; ord <= counts[spec.Event]; ord++ {
				d.sites = append(d.sites, Site{Kind: spec.Kind, Event: spec.Event, Ordinal: ord})
			}
		case scopeAnywhere:
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
		return fmt.Errorf("fuzz: the clean run of %s crosses no event a fault kind is placed at in scope %s (the events it crossed: %s)", d.def.Name, d.scope, eventList(d.crossed))
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

// kindSpecs are the kinds a decoder under cfg places on fx, in site
// order: the catalogue's, the world events, under a config with notices
// (Config.Notices) the kinds of the provider's notices
// (model.NoticeKinds), which a config without them never places, and on
// a fleet those of model.CacheAndWorkerKinds the default search draws
// there (catalog.DrawnByDefault) but the worker-scoped ones: the fleet
// kinds, server_error and network_error. A decoder places the kinds the
// default search draws everywhere on fleets only, where its byte format
// has them.
func kindSpecs(cfg model.Config, fx *model.Fixture) []model.FaultSpec {
	specs := append(model.Catalogue(), model.WorldEvents()...)
	if cfg.Notices {
		specs = append(specs, model.NoticeKinds()...)
	}
	for _, sp := range model.CacheAndWorkerKinds() {
		if fx.Fleet != nil && !sp.WorkerScoped && catalog.DrawnByDefault(fx, cfg, sp) {
			specs = append(specs, sp)
		}
	}
	return specs
}

// specs are the kinds the decoder places: kindSpecs of its config, only
// those the system's path enacts (Definition.Enacts) and WithKinds names.
func (d *Decoder) specs() []model.FaultSpec {
	specs := slices.DeleteFunc(kindSpecs(d.config, &d.fixture), func(sp model.FaultSpec) bool { return !catalog.Enacted(d.def, sp.Kind) })
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

// fits reports whether the schedule validator accepts kind at ev.
func fits(cfg model.Config, kind string, ev model.EventName) bool {
	s := model.Schedule{Version: model.ScheduleVersion, Config: cfg, Faults: []model.FaultEntry{{Event: ev, Ordinal: 1, Kind: kind}}}
	return s.Validate() == nil
}

// Sites returns the injection sites in decoding order: the catalogue's
// kinds in catalogue order, then the world events in their order (then
// the notice kinds, and on a fleet fixture the fleet kinds, server_error
// and network_error; kindSpecs),
// each at the events and ordinals of the scope (kinds whose events the
// clean run never crossed have none).
func (d *Decoder) Sites() []Site { return append([]Site(nil), d.sites...) }

// modifiersOf returns the modifiers each kind takes under cfg on fx (see
// WithModifiers), in the spec's order.
func modifiersOf(cfg model.Config, fx model.Fixture) map[string][]model.Correlation {
	workers := cfg.Concurrency != nil && cfg.Concurrency.Workers >= 2 && len(fx.Tasks) >= 2
	tenants := false
	for _, t := range fx.Tasks {
		tenants = tenants || t.Tenant != fx.Tasks[0].Tenant
	}
	out := map[string][]model.Correlation{}
	for _, sp := range append(append(append(model.Catalogue(), model.WorldEvents()...), model.NoticeKinds()...), model.CacheAndWorkerKinds()...) {
		for _, c := range sp.Correlations {
			if c == "synchronized" && !workers || c == "shared" && !tenants {
				continue
			}
			out[sp.Kind] = append(out[sp.Kind], c)
		}
	}
	return out
}

// stride is the bytes of one fault: its site's, and under WithModifiers
// one more.
func (d *Decoder) stride() int {
	if d.mods != nil {
		return d.width + 1
	}
	return d.width
}

// Decode returns the composition data encodes. It is total and
// deterministic: every input gives a schedule that model.Schedule.Validate
// accepts, and equal inputs give equal schedules. The schedule's seed
// label is "fuzz-" and the hex of the bytes that chose its faults.
func (d *Decoder) Decode(data []byte) *model.Schedule {
	w := d.stride()
	n := min(len(data)/w, d.maxFaults)
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "fuzz-" + hex.EncodeToString(data[:n*w]),
		Config: d.config, Faults: make([]model.FaultEntry, 0, n)}
	for i := 0; i < n; i++ {
		v := int(data[i*w])
		if d.width == 2 {
			v = v<<8 | int(data[i*w+1])
		}
		site := d.sites[v%len(d.sites)]
		f := model.FaultEntry{Event: site.Event, Ordinal: site.Ordinal, Kind: site.Kind}
		if cs := d.mods[site.Kind]; d.mods != nil && len(cs) > 0 {
			if c := int(data[i*w+d.width]) % (1 + len(cs)); c > 0 {
				f.Correlation = cs[c-1]
				if f.Correlation == "repeated" {
					f.Repeat = 2
				}
			}
		}
		s.Faults = append(s.Faults, f)
	}
	return s
}

// Encode returns the shortest bytes that Decode turns into s's faults, in
// order. It ignores s's seed label, config and fault ids, and without
// WithModifiers the faults' modifiers. It returns an
// error naming the first fault whose kind, event and ordinal are not a
// site of the decoder's scope or that names a target or a tool, or a
// schedule with more faults than the decoder's limit.
func (d *Decoder) Encode(s *model.Schedule) ([]byte, error) {
	if len(s.Faults) > d.maxFaults {
		return nil, fmt.Errorf("fuzz: %d faults, more than the decoder's %d", len(s.Faults), d.maxFaults)
	}
	out := make([]byte, 0, len(s.Faults)*d.stride())
	for i, f := range s.Faults {
		site := Site{Kind: f.Kind, Event: f.Event, Ordinal: f.Ordinal}
		m := 0
		if f.Correlation != "" && d.mods != nil { // without WithModifiers: the site alone, as before
			m = 1 + slices.Index(d.mods[f.Kind], f.Correlation)
			switch {
			case m == 0:
				return nil, fmt.Errorf("fuzz: faults[%d] (%s) carries the modifier %s, which its kind does not take under the decoder's config", i, site, f.Correlation)
			case f.Until != "" || f.WindowMs != 0 || f.Correlation == "repeated" && f.Repeat != 2:
				return nil, fmt.Errorf("fuzz: faults[%d] (%s) sets a modifier's parameter; the decoder places repeat 2 and the defaults only", i, site)
			}
		}
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
		if d.mods != nil {
			out = append(out, byte(m))
		}
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
