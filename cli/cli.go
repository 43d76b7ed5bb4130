// Package cli is the command line of faultline for the systems a program
// registers: a user's own cmd/ imports it, registers the model.Definition
// of each of its systems and gets the commands
//
//	replay FILE                 replay a schedule or counterexample file
//	explore                     explore fault compositions with rapid
//	audit                       every kind in scope once under each named config
//	dossier [diff]              write the release evidence dossier, compare two
//	coverage report|merge|gate  read, merge and gate coverage files
//
// for them, with one exit-code table (0 held, 1 violated or gate failed, 2
// bad input, 3 inconclusive, 4 I/O or internal error; the README gives it
// in full, and "PROG help" prints it). Entry points:
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, billing.Definition())) }
//
// or, for more than the systems, a [Program] (Program.Command returns the
// cobra command to embed in a larger tree):
//
//	p := &cli.Program{Name: "billing", Systems: []*model.Definition{billing.Definition()}}
//	os.Exit(p.Run(os.Args[1:], os.Stdout, os.Stderr))
//
// --fixture NAME picks one of a definition's fixtures, --config JSON sets
// the config's system part, --system NAME picks the system when more than
// one is registered; replay finds a file's system by its fixture. A
// system's own flags on replay and explore come from Program.Flags. A
// Definition's ReplayCommand names the replay line its coverage and
// counterexamples print; without one, "PROG replay FILE".
// FAULTLINE_COVERAGE=FILE asks explore and audit to merge their runs'
// coverage into FILE when --coverage is not given. Production code (a
// Definition with a Clock) runs only in a test's synctest bubbles: every
// command that runs a system refuses it, exit 2.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/model"
)

// Program is a command line for the systems it registers.
type Program struct {
	// Name is the command's name in usage, messages and the replay
	// commands it prints ("billing"); "" means the base name of
	// os.Args[0].
	Name string
	// Short and Long are the root command's help; "" gives a generic
	// text (Long then lists the exit codes).
	Short, Long string
	// Systems are the registered systems (at least one), each valid
	// (model.Definition.Validate) and of a distinct name.
	Systems []*model.Definition
	// Flags returns, by system name, a system's own flags for one replay
	// or explore command (a fresh value per command), for what its
	// Definition cannot hold: flags depend on the command line. Two
	// systems' flags must not share a name.
	Flags map[string]func() SystemFlags
	// Commands adds commands to the program, each built afresh per
	// Command call; one whose name is a built-in command's (replay,
	// explore, audit, dossier, coverage) replaces it, keeping the
	// built-in's subcommands it does not define. A command returns an
	// *ExitError to choose its exit code (see BadInput and the others);
	// any other error exits 4.
	Commands []func() *cobra.Command
	// EmptyAllowed names the flags whose empty value means something
	// documented (a --controls '' that means no control). Every other
	// flag given empty is bad input.
	EmptyAllowed []string
}

// SystemFlags are a system's own flags on replay and explore, which set
// its config's system part.
type SystemFlags interface {
	// Add registers the flags on c; command is "replay" or "explore".
	Add(c *cobra.Command, command string)
	// Apply returns cfg with the flags given on c applied: for replay
	// cfg is the file's config, for explore the config --config and
	// --fixture give. changed reports whether any of its flags was given
	// (replay then does not compare the run with a recorded one). An
	// error is returned as it is (wrap a bad value with BadInput);
	// ErrDone ends the command with exit 0 (a listing flag).
	Apply(c *cobra.Command, command string, cfg model.Config) (out model.Config, changed bool, err error)
	// Help is a paragraph on the flags appended to the command's help
	// ("" adds none).
	Help(command string) string
	// Header is what replay prints after the config on its first line
	// ("(controls: none)"); "" prints nothing.
	Header(cfg model.Config) (string, error)
}

// Main runs a program registering systems on args (without the program's
// name) and returns the exit code; the name is os.Args[0]'s base name.
func Main(args []string, stdout, stderr io.Writer, systems ...*model.Definition) int {
	return (&Program{Systems: systems}).Run(args, stdout, stderr)
}

// name is the program's name.
func (p *Program) name() string {
	if p.Name != "" {
		return p.Name
	}
	if len(os.Args) > 0 && os.Args[0] != "" {
		return filepath.Base(os.Args[0])
	}
	return "faultline"
}

// check returns the problem with the registration (no system, an
// invalid definition, two systems of one name, a configuration name that
// is not 1 to 64 lower-case letters, digits and underscores or is listed
// twice, flags of no registered system), or nil.
func (p *Program) check() error {
	if len(p.Systems) == 0 {
		return errors.New("cli: no system registered")
	}
	seen := map[string]bool{}
	for _, d := range p.Systems {
		if err := d.Validate(); err != nil {
			return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("cli: %w", err)}
		}
		if seen[d.Name] {
			return fmt.Errorf("cli: system %q registered twice", d.Name)
		}
		seen[d.Name] = true
		names := map[string]bool{}
		for _, nc := range d.Configs {
			if err := coverage.CheckInvariantName(nc.Name); err != nil {
				return fmt.Errorf("cli: system %s: configuration %q: a name is 1 to 64 lower-case letters, digits and underscores, starting with a letter", d.Name, nc.Name)
			}
			if names[nc.Name] {
				return fmt.Errorf("cli: system %s: configuration %q listed twice", d.Name, nc.Name)
			}
			names[nc.Name] = true
		}
		if _, err := p.tracker(d); err != nil {
			return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("cli: %w", err)}
		}
	}
	for n := range p.Flags {
		if !seen[n] {
			return fmt.Errorf("cli: flags for %q, which is not a registered system", n)
		}
	}
	return nil
}

// systemNames lists the registered systems' names.
func (p *Program) systemNames() []string {
	out := make([]string, len(p.Systems))
	for i, d := range p.Systems {
		out[i] = d.Name
	}
	return out
}

// system returns the registered system named name, or bad input naming
// the registered ones.
func (p *Program) system(name string) (*model.Definition, error) {
	for _, d := range p.Systems {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, BadInput("--system: unknown system %q (registered: %s)", name, strings.Join(p.systemNames(), ", "))
}

// replayCommand is def's replay template: its ReplayCommand, or, when it
// declares none (or def is nil), this program's replay command.
func (p *Program) replayCommand(def *model.Definition) string {
	if def != nil && def.ReplayCommand != "" {
		return def.ReplayCommand
	}
	return strings.ReplaceAll(p.name(), "%", "%%") + " replay %s"
}

// tracker returns an empty coverage tracker of def's runs, replayed with
// p.replayCommand(def); check has made one of each system already.
func (p *Program) tracker(def *model.Definition) (*coverage.Tracker, error) {
	d := *def
	d.ReplayCommand = p.replayCommand(def)
	return coverage.NewTracker(nil, &d)
}

// systemFlags returns fresh flags of every system that has some.
func (p *Program) systemFlags() map[string]SystemFlags {
	out := map[string]SystemFlags{}
	for _, d := range p.Systems {
		if f := p.Flags[d.Name]; f != nil {
			out[d.Name] = f()
		}
	}
	return out
}

const exitTable = `Exit codes (every command):
  0  it ran, every invariant in scope held, and every scheduled fault was
     reached and fired; for a campaign (explore, audit, coverage gate) at
     least one scheduled fault was reached, and the output counts the
     faults that were not
  1  an invariant was violated (a counterexample), a gate failed, or an
     audit found a violation under a configuration marked defended
  2  bad input: usage, a flag (unknown, empty, or a count out of range), a
     missing, malformed or oversized file, a config that does not apply,
     production code (a Definition with a Clock: it runs only in a test)
  3  inconclusive: for one run, a scheduled fault was never reached or
     never fired; for a campaign, no scheduled fault was reached at all
  4  an I/O or internal error: a full disk, an unreadable file or
     directory, output that could not be written`

// Command returns the program's root command writing to stdout and
// stderr. It panics on an invalid registration (no system, an invalid
// or duplicate definition), a programming error Run reports instead.
func (p *Program) Command(stdout, stderr io.Writer) *cobra.Command {
	if err := p.check(); err != nil {
		panic(err)
	}
	short, long := p.Short, p.Long
	if short == "" {
		short = "Test " + strings.Join(p.systemNames(), ", ") + " under typed faults"
	}
	if long == "" {
		long = p.name() + " tests " + strings.Join(p.systemNames(), ", ") + " under typed faults (faultline): it\n" +
			"replays schedule and counterexample files, explores compositions of faults,\n" +
			"audits every fault kind under each named configuration, writes the release\n" +
			"evidence dossier, and reads, merges and gates coverage files.\n\n" + exitTable
	}
	version := p.versionText(debug.ReadBuildInfo())
	root := &cobra.Command{Use: p.name(), Short: short, Long: long, SilenceUsage: true, SilenceErrors: true,
		Version: version}
	root.SetVersionTemplate("{{.Version}}")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitBadInput, Err: flagError(err)}
	})
	mine := map[string]*cobra.Command{}
	var extra []*cobra.Command
	for _, mk := range p.Commands {
		c := mk()
		mine[c.Name()] = c
		extra = append(extra, c)
	}
	for _, c := range []*cobra.Command{p.replayCmd(), p.exploreCmd(), p.auditCmd(), p.dossierCmd(), p.coverageCmd(), p.scheduleCmd(), p.matrixCmd(), p.versionCmd()} {
		m := mine[c.Name()]
		if m == nil {
			root.AddCommand(c)
			continue
		}
		// a replacing command keeps the built-in's subcommands it does not
		// define itself ("dossier diff")
		own := map[string]bool{}
		for _, sub := range m.Commands() {
			own[sub.Name()] = true
		}
		for _, sub := range c.Commands() {
			if !own[sub.Name()] {
				c.RemoveCommand(sub)
				m.AddCommand(sub)
			}
		}
	}
	root.AddCommand(extra...)
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || cmd == nil {
				return BadInput("help: unknown command %q (run \"%s help\" for the commands)", strings.Join(args, " "), p.name())
			}
			return cmd.Help()
		},
	})
	// cobra adds "completion" at Execute; added now, it is guarded as
	// every command is ("completion nope" is bad input)
	root.InitDefaultCompletionCmd()
	empty := map[string]bool{}
	for _, n := range p.EmptyAllowed {
		empty[n] = true
	}
	for _, c := range root.Commands() {
		guard(c, empty)
	}
	p.completeValues(root)
	return root
}

// Run executes args (without the program's name) and returns the exit
// code, printing an error's message to stderr after the program's name.
// Output that could not be written (a full disk) exits 4, also when a
// command did not check its writes.
// An invalid registration prints its problem and returns 4, or 2 when
// a definition fails model.Definition.Validate (its name, fixtures or
// Configure: the system's own input).
func (p *Program) Run(args []string, stdout, stderr io.Writer) int {
	if err := p.check(); err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			fmt.Fprintln(stderr, p.name()+":", ee.Err)
			return ee.Code
		}
		fmt.Fprintln(stderr, p.name()+":", err)
		return ExitIO
	}
	out := &recordingWriter{w: stdout}
	root := p.Command(out, stderr)
	args = versionArgs(args)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil && out.err != nil {
		// output a command or cobra's help printed without checking it
		err = &ExitError{Code: ExitIO, Err: fmt.Errorf("writing the output: %w", out.err)}
	}
	if err == nil {
		return ExitOK
	}
	code := ExitBadInput // cobra's own errors (unknown command, bad arguments)
	var ee *ExitError
	if errors.As(err, &ee) {
		code, err = ee.Code, ee.Err
	}
	if err.Error() == "" {
		return code // the output said it all (ErrViolation)
	}
	fmt.Fprintln(stderr, p.name()+":", err)
	if out.n == 0 && out.err == nil && outflag.Asked(cmd, args) {
		// JSON was asked for and nothing printed: the error is the output
		_ = writeErrorJSON(stdout, err, code)
	}
	return code
}

// errorJSON is the one object a command that was asked for JSON prints on
// stdout when it fails before printing its output.
type errorJSON struct {
	Version int    `json:"version"`
	Error   string `json:"error"`
	Exit    int    `json:"exit"`
}

// writeErrorJSON writes err and its exit code as one line of JSON.
func writeErrorJSON(w io.Writer, err error, code int) error {
	b, jerr := json.Marshal(errorJSON{Version: 1, Error: err.Error(), Exit: code})
	if jerr != nil {
		return jerr
	}
	_, werr := w.Write(append(b, '\n'))
	return werr
}

// recordingWriter passes writes to w and keeps the first error, so that
// output lost to a full disk is never an exit 0.
type recordingWriter struct {
	w   io.Writer
	n   int // bytes written
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	r.n += n
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// guard wraps c and its subcommands: every flag given with an empty value
// (or an empty element in a list) is bad input unless empty allows it,
// arguments to a command that only groups subcommands are bad input, and
// an error a command returns without an exit code is an I/O or internal
// error (4).
func guard(c *cobra.Command, empty map[string]bool) {
	for _, sub := range c.Commands() {
		guard(sub, empty)
	}
	run := c.RunE
	if run == nil {
		if !c.HasSubCommands() {
			return
		}
		run = func(c *cobra.Command, args []string) error {
			var names []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			if len(args) > 0 {
				return BadInput("unknown command %q for %q (valid: %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
			}
			if c.Name() == "completion" && c.Parent() != nil && !c.Parent().HasParent() {
				// a completion script needs its shell: without one it is a
				// usage error, not a help page
				return BadInput("%s needs a shell: one of %s (\"%s --help\" for help)", c.CommandPath(), strings.Join(names, ", "), c.CommandPath())
			}
			return c.Help()
		}
	}
	if check := c.Args; check != nil && !c.HasSubCommands() {
		// cobra's argument errors ("unknown command", "accepts 1 arg(s)")
		// name the usage too
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return BadInput("%v (usage: %s)", err, c.UseLine())
			}
			return nil
		}
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		var bad error
		c.Flags().Visit(func(f *pflag.Flag) {
			if bad != nil {
				return
			}
			if err := checkNotEmpty(f, empty[f.Name]); err != nil {
				bad = err
			}
		})
		if bad != nil {
			return bad
		}
		err := run(c, args)
		if err == nil {
			return nil
		}
		if f := systemFailure(err); f != nil {
			return f
		}
		return IOFailure(err)
	}
}

// systemFailure returns, when the system under test panicked in a run
// (err holds a *model.SystemPanic), the error as exit 1 (a finding,
// whatever a command wrapped it in) with the system's stack; nil
// otherwise.
func systemFailure(err error) error {
	var sp *model.SystemPanic
	if !errors.As(err, &sp) {
		return nil
	}
	return &ExitError{Code: ExitViolation, Err: fmt.Errorf("%w\n(the system failed: exit 1)\n%s", err, strings.TrimSpace(sp.Stack))}
}

// checkNotEmpty returns bad input when a given flag's value is empty
// (unless allowEmpty: the flag's empty value means something) or, for a
// list, holds an empty element ("a,,b", ",", " "), allowed or not.
func checkNotEmpty(f *pflag.Flag, allowEmpty bool) error {
	switch v := f.Value.(type) {
	case pflag.SliceValue:
		l := v.GetSlice()
		if len(l) == 0 {
			if allowEmpty {
				return nil
			}
			return BadInput("--%s is empty: name at least one value, or leave the flag out", f.Name)
		}
		for _, x := range l {
			if strings.TrimSpace(x) == "" {
				return BadInput("--%s %q holds an empty element: name each value once, separated by single commas", f.Name, strings.Join(l, ","))
			}
		}
	default:
		if !allowEmpty && f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == "" {
			return BadInput("--%s is empty: give a value, or leave the flag out", f.Name)
		}
	}
	return nil
}

// flagError rewrites pflag's "invalid argument "x" for "--seed" flag:
// strconv.ParseUint: parsing "x": invalid syntax" as "invalid argument
// "x" for --seed: not a whole number of 0 or more"; other errors stay.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	f := iv.GetFlag()
	what := map[string]string{
		"int": "a whole number", "int64": "a whole number", "int32": "a whole number",
		"uint64": "a whole number of 0 or more", "uint": "a whole number of 0 or more",
		"bool": "true or false", "float64": "a number", "duration": "a duration (such as 500ms or 2s)",
	}[f.Value.Type()]
	if what == "" {
		return err
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
		return fmt.Errorf("invalid argument %q for --%s: out of range for %s (see \"help\" for the flag's limits)", iv.GetValue(), f.Name, what)
	}
	return fmt.Errorf("invalid argument %q for --%s: not %s", iv.GetValue(), f.Name, what)
}

// CheckCount returns bad input naming the flag and the limits unless
// lo <= v <= hi.
func CheckCount(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return BadInput("--%s must be between %d and %d, got %d", flag, lo, hi, v)
	}
	return nil
}

// writeJSON writes v as indented JSON without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	var b strings.Builder
	enc := newEncoder(&b)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
