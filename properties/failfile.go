package properties

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"unicode"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// ReplayEnv is the environment variable Check reads: set to the path of a
// counterexample's schedule file (relative to the test's package
// directory, where go test runs the test binary), Check runs that file's
// faults once on the test's own system and config instead of exploring.
const ReplayEnv = "FAULTLINE_REPLAY"

// failDir is the folder, relative to the test's package directory, under
// which Check keeps each test's counterexamples by default: failDir/NAME/,
// NAME the test's name with every character other than a letter, a digit,
// '-' and '_' made '_' (as rapid names its folders under testdata/rapid/).
const failDir = "testdata/faultline"

// WithFailDir sets the folder counterexamples are written to (created if
// missing; see WriteCounterexample). Check also replays the files stored
// there first (default testdata/faultline/TEST/ of the package); Explore
// writes none without it. A test expecting a counterexample gives it
// t.TempDir(). An empty dir is an error.
func WithFailDir(dir string) Option {
	return optionFunc(func(s *settings) error {
		if dir == "" {
			return errors.New("properties: empty fail directory")
		}
		s.failDir = dir
		return nil
	})
}

// failFiles is where Check keeps one test's counterexamples, and the
// command that replays one of them for the test's own system.
type failFiles struct {
	dir     string
	test    string // the test's name
	cwd     string // the test binary's working directory ("" when unknown)
	pkg     string // the package argument of go test
	pattern string // the -run pattern matching exactly the test
	replay  string // the Definition's ReplayCommand ("": the go test line)
}

// newFailFiles returns the fail files of the test named test: in dir, or
// failDir/NAME/ when dir is "".
func newFailFiles(test, dir string) failFiles {
	if dir == "" {
		dir = filepath.Join(filepath.FromSlash(failDir), safeName(test))
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	return failFiles{dir: dir, test: test, cwd: cwd, pkg: packageArg(cwd), pattern: runPattern(test)}
}

// command returns the shell command that replays the schedule file at
// path through the test: FAULTLINE_REPLAY=FILE go test -run '^TEST$' PKG,
// FILE relative to the package directory when path lies under it, PKG
// the package's directory relative to the module root (run from there).
func (f failFiles) command(path string) string {
	if f.replay != "" {
		return fmt.Sprintf(f.replay, path)
	}
	if filepath.IsAbs(path) && f.cwd != "" {
		if rel, err := filepath.Rel(f.cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			path = rel
		}
	}
	return fmt.Sprintf("%s=%s go test -run %s %s", ReplayEnv, shellWord(filepath.ToSlash(path)), quote(f.pattern), shellWord(f.pkg))
}

// safeName makes a test's name a folder name, as rapid does for
// testdata/rapid/: letters, digits, '-' and '_' kept, anything else '_',
// and a name Windows reserves given a trailing '_'.
func safeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	s := b.String()
	switch up := strings.ToUpper(s); {
	case up == "CON" || up == "PRN" || up == "AUX" || up == "NUL",
		len(up) == 4 && (strings.HasPrefix(up, "COM") || strings.HasPrefix(up, "LPT")) && up[3] >= '0' && up[3] <= '9':
		s += "_"
	}
	return s
}

// runPattern is the go test -run pattern that matches exactly the test
// named name: each element of a subtest's name anchored and quoted.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// packageArg is the package argument of go test for the test binary's
// working directory cwd: "./" and its path relative to the module root
// (the nearest directory above with a go.mod), "." at the root; when no
// go.mod is found, the package's import path from the binary's build
// information; "." when neither is known.
func packageArg(cwd string) string {
	for dir := cwd; dir != ""; {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			rel, err := filepath.Rel(dir, cwd)
			if err != nil {
				break
			}
			if rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if bi, ok := debug.ReadBuildInfo(); ok && strings.HasSuffix(bi.Path, ".test") {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return "."
}

// quote single-quotes s for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellWord is s as one shell word: as it is when it holds only
// characters no shell treats specially, quoted otherwise.
func shellWord(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+,=", r)) {
			return quote(s)
		}
	}
	return s
}

// stored lists the schedule files of f's folder (NAME.json, not the
// NAME.counterexample.json records beside them nor hidden files), in name
// order; a folder that does not exist holds none.
func (f failFiles) stored() ([]string, error) {
	ents, err := os.ReadDir(f.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("properties: reading the stored counterexamples: %w", err)
	}
	var paths []string
	for _, ent := range ents {
		n := ent.Name()
		if ent.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".counterexample.json") {
			continue
		}
		paths = append(paths, filepath.Join(f.dir, n))
	}
	return paths, nil
}

// loadStored reads the schedule of a stored counterexample: a schedule
// file (NAME.json), or the counterexample file beside it
// (NAME.counterexample.json, any version corpus.ReadCounterexample reads),
// both decoded strictly. Errors name the file.
func loadStored(path string) (*model.Schedule, error) {
	data, err := fileio.ReadFile(path, fileio.ScheduleLimit)
	if err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	// one look at the top-level keys, then one strict decoding
	ce, err := corpus.ReadCounterexample(data)
	switch {
	case err == nil && ce.Schedule == nil:
		return nil, fmt.Errorf("properties: %s: a counterexample of kind %s holds no schedule", path, ce.Kind)
	case err == nil:
		return ce.Schedule, nil
	case !errors.Is(err, corpus.ErrNeither):
		return nil, fmt.Errorf("properties: %s: %w", path, err)
	}
	s, err := model.ParseSchedule(data)
	if err != nil {
		return nil, fmt.Errorf("properties: %s: %w", path, err)
	}
	return s, nil
}

// stored is the outcome of replaying one stored counterexample.
type stored struct {
	// cx is the counterexample when the file still breaks an invariant in
	// scope, nil when every one held
	cx  *Counterexample
	res *model.Result
	// note says that the file's config is not the test's, "" when it is
	note string
	// testConfig is set when the file's faults ran under the test's config,
	// not the file's own: FAULTLINE_REPLAY of the file would replay another
	// run
	testConfig bool
}

// reached counts the faults of the replay that reached their event.
func (s stored) reached() int {
	n := 0
	for _, f := range s.res.Faults {
		if f.Reached {
			n++
		}
	}
	return n
}

// inconclusive says why the replay of a stored schedule that broke no
// invariant tested less than the schedule asks, "" when it tested all of
// it: none of its faults was reached (it tested nothing: the system's path
// changed, and the events or ordinals the file names are no longer
// crossed), or the run tested less (model.Result.Err's code 3: a fault
// not reached or not fired, no invariant, no verdict). It is the one rule of a stored file's verdict, for Check's fail
// folder and FAULTLINE_REPLAY alike: such a file is inconclusive (exit 3),
// never "fixed".
func (s stored) inconclusive() string {
	if s.cx != nil {
		return ""
	}
	if len(s.res.Faults) > 0 && s.reached() == 0 {
		seen := map[model.EventName]bool{}
		for _, ev := range s.res.Timeline.Events() {
			seen[ev.Event] = true
		}
		var crossed []string
		for _, ev := range allEvents {
			if seen[ev] {
				crossed = append(crossed, string(ev))
			}
		}
		if len(crossed) == 0 {
			crossed = []string{"(none)"}
		}
		return fmt.Sprintf("none of its %d faults was reached, so it tested nothing (the system's path changed: the events or ordinals it names are no longer crossed); the events the system crossed: %s",
			len(s.res.Faults), strings.Join(crossed, ", "))
	}
	// code 1 is an invariant out of the test's scope: not this rule's
	if re := (*model.RunError)(nil); errors.As(s.res.Err(), &re) && re.Code == 3 {
		// the message a stored file's verdict is given in says "inconclusive" once
		return strings.TrimPrefix(re.Error(), "inconclusive: ") + ": the run tested less than its schedule asks"
	}
	return ""
}

// fired counts the stored run's faults that were reached and fired.
func (s stored) fired() int {
	n := 0
	for _, f := range s.res.Faults {
		if f.Reached && f.Fired > 0 {
			n++
		}
	}
	return n
}

// replayStored runs the faults of the schedule file at path once on the
// test's own system through the public replay path: under the test's
// config and fixture (the file's seed kept) when own is false, so that a
// fix made in the config shows as fixed; under the file's own config when
// own is true (an explicit FAULTLINE_REPLAY reproduces the run that
// failed, whatever the test's config is now).
func (e *explorer) replayStored(f failFiles, path string, own bool) (stored, error) {
	file, err := loadStored(path)
	if err != nil {
		return stored{}, err
	}
	if name := file.Config.Fixture; name != "" {
		if _, err := e.set.def.Fixture(name); err != nil {
			return stored{}, fmt.Errorf("properties: %s names fixture %q, which system %s does not have (its fixtures: %s): bad input, exit 2, and the file is kept",
				path, name, e.set.def.Name, strings.Join(fixtureNames(e.set.def), ", "))
		}
	}
	s := *file
	var out stored
	if file.Config.Fixture == "" && e.set.def.Fixtures[0].Name == e.set.config.Fixture {
		// no fixture named is the system's default, which the test runs
		file.Config.Fixture = e.set.config.Fixture
	}
	fileDesc, testDesc := e.describe(file.Config), e.describe(e.set.config)
	if fileDesc == testDesc { // they differ in what describe leaves out: name the fixtures
		fileDesc += ", fixture " + orDefault(file.Config.Fixture)
		testDesc += ", fixture " + orDefault(e.set.config.Fixture)
	}
	switch {
	case file.Config.Equal(e.set.config):
		s.Config = e.set.config
	case own:
		if s.Config.Fixture == "" {
			s.Config.Fixture = e.set.config.Fixture
		}
		out.note = fmt.Sprintf("; replayed under its own config (%s), not the test's (%s)", fileDesc, testDesc)
	default:
		s.Config = e.set.config
		out.note = fmt.Sprintf("; its config (%s) is not the test's (%s), which it was replayed under", fileDesc, testDesc)
		out.testConfig = true
	}
	out.note += e.outsideNote(&s)
	if out.res, err = e.replay(&s); err != nil {
		return stored{}, fmt.Errorf("%w (replaying %s)", err, path)
	}
	if ir, bad := e.violation(out.res); bad {
		out.cx = describe(&s, out.res, ir)
		out.cx.File, out.cx.Replay, out.cx.stored, out.cx.Jitter = path, f.command(path), true, e.spread.get()
	}
	return out, nil
}

// outsideNote says which fault kinds of a stored schedule the test's
// options leave out of its draws (WithKinds, WithDomains), "" when none:
// the file is replayed all the same, since the fail folder holds the
// failures a test keeps replaying (a fuzz target's among them, see
// FailFolder), and skipping one for its kind would pass a test with a
// known counterexample unrun.
func (e *explorer) outsideNote(s *model.Schedule) string {
	var out []string
	for _, f := range s.Faults {
		in := e.set.kinds == nil || slices.Contains(e.set.kinds, f.Kind)
		if sp, err := model.Spec(f.Kind); in && e.set.domains != nil {
			in = err == nil && slices.Contains(e.set.domains, sp.Domain)
		}
		if !in && !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	if len(out) == 0 {
		return ""
	}
	var drawn []string
	if e.set.kinds != nil {
		drawn = append(drawn, "kinds "+strings.Join(e.set.kinds, ", "))
	}
	if e.set.domains != nil {
		ds := make([]string, len(e.set.domains))
		for i, d := range e.set.domains {
			ds[i] = string(d)
		}
		drawn = append(drawn, "domains "+strings.Join(ds, ", "))
	}
	what := "kind " + out[0] + " is"
	if len(out) > 1 {
		what = "kinds " + strings.Join(out, ", ") + " are"
	}
	return fmt.Sprintf("; its %s outside those the test draws (%s): replayed all the same, as every stored file is", what, strings.Join(drawn, "; "))
}

// orDefault names a config's fixture, "(default)" for none.
func orDefault(fixture string) string {
	if fixture == "" {
		return "(default)"
	}
	return fixture
}

// fixtureNames lists the names of def's declared fixtures, in order.
func fixtureNames(def *model.Definition) []string {
	out := make([]string, len(def.Fixtures))
	for i, f := range def.Fixtures {
		out[i] = f.Name
	}
	return out
}
