package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/internal/complete"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// configFlags are the shared --profile, --controls and --without flags.
type configFlags struct {
	profile  string
	controls []string
	without  []string
}

func (f *configFlags) add(c *cobra.Command, defaultProfile string, withWithout bool) {
	c.Flags().StringVar(&f.profile, "profile", defaultProfile, "control profile: baseline, typed, fail_closed or typed_fleet")
	c.Flags().StringSliceVar(&f.controls, "controls", nil, "explicit control list, comma-separated (empty means no control); overrides --profile")
	complete.Values(c, "profile", profileNames)
	complete.Values(c, "controls", controlNames)
	if withWithout {
		c.Flags().StringSliceVar(&f.without, "without", nil, "controls to remove from the selected set, comma-separated")
		complete.Values(c, "without", controlNames)
	}
}

// profileNames lists the reference system's profiles, for completion.
func profileNames() []string {
	out := []string{}
	for _, p := range append(append([]copperfin.Profile(nil), copperfin.Profiles...), copperfin.ProfileTypedFleet) {
		out = append(out, string(p))
	}
	return out
}

// controlNames lists the reference system's controls, for completion.
func controlNames() []string {
	out := []string{}
	for _, l := range [][]copperfin.Control{copperfin.AllControls, copperfin.FleetControls, copperfin.CacheWorkerControls} {
		for _, c := range l {
			out = append(out, string(c))
		}
	}
	return out
}

// mutantNames lists the reference system's mutants, for completion.
func mutantNames() []string {
	out := []string{}
	for _, m := range copperfin.Mutants() {
		out = append(out, string(m.Name))
	}
	return out
}

// compatNames are the --compat targets.
func compatNames() []string { return []string{"paper188"} }

// resolve returns the control set and a label ("baseline", "typed",
// "fail_closed" or "custom"). base is the config to start from when neither
// flag was given (nil means the --profile default).
func (f *configFlags) resolve(c *cobra.Command, base *model.Config) (copperfin.Controls, string, error) {
	var cs copperfin.Controls
	label := f.profile
	switch {
	case c.Flags().Changed("controls"):
		if c.Flags().Changed("profile") {
			return 0, "", badInput("give --profile or --controls, not both")
		}
		names := []string{}
		for _, n := range f.controls {
			if strings.TrimSpace(n) != "" {
				names = append(names, n)
			}
		}
		var err error
		if cs, err = copperfin.ParseControls(names); err != nil {
			return 0, "", badInput("--controls: %v", err)
		}
		label = "custom"
	case c.Flags().Changed("profile") || base == nil:
		var err error
		if cs, err = copperfin.ProfileControls(copperfin.Profile(f.profile)); err != nil {
			return 0, "", badInput("--profile: %v", err)
		}
	default:
		st, err := copperfin.SettingsOf(*base)
		if err != nil {
			return 0, "", badInput("%v", err)
		}
		if cs, err = st.Resolve(); err != nil {
			return 0, "", badInput("%v", err)
		}
		label = string(st.Profile)
		if st.HasControls {
			label = "custom"
		}
	}
	if len(f.without) > 0 {
		rm, err := copperfin.ParseControls(f.without)
		if err != nil {
			return 0, "", badInput("--without: %v", err)
		}
		for _, x := range rm.List() {
			cs = cs.Without(x)
		}
		label = "custom"
	}
	return cs, label, nil
}

// maxTrials bounds assay --trials: a count is work the command does and
// memory it allocates (assay plans every trial up front), so it has a
// ceiling named in its error.
const maxTrials = 100_000_000

// referenceFlags are the reference system's own flags on replay and
// explore (cli.SystemFlags): --profile, --controls, --without and
// --mutant, and explore's --list-mutants.
type referenceFlags struct {
	cf          configFlags
	mutant      string
	listMutants bool
}

// Add registers the flags on replay or explore.
func (f *referenceFlags) Add(c *cobra.Command, command string) {
	f.cf.add(c, "typed", true)
	if command == "replay" {
		c.Flags().StringVar(&f.mutant, "mutant", "", "run the reference system with this seeded defect (see faultline explore --list-mutants); '' removes the file's mutant")
		complete.Values(c, "mutant", mutantNames)
		return
	}
	c.Flags().StringVar(&f.mutant, "mutant", "", "explore the reference system with this seeded defect (see --list-mutants)")
	c.Flags().BoolVar(&f.listMutants, "list-mutants", false, "print the reference system's mutant names, one a line, and exit")
	complete.Values(c, "mutant", mutantNames)
}

// Apply sets the control selection and the mutant the flags name: for
// replay over the file's config (only what the flags name changes), for
// explore over --config's system part when given, else --profile's
// default.
func (f *referenceFlags) Apply(c *cobra.Command, command string, cfg model.Config) (model.Config, bool, error) {
	if command == "replay" {
		if !c.Flags().Changed("profile") && !c.Flags().Changed("controls") && !c.Flags().Changed("without") && !c.Flags().Changed("mutant") {
			return cfg, false, nil // the file's config, which its run checks
		}
		cs, label, err := f.cf.resolve(c, &cfg)
		if err != nil {
			return cfg, false, err
		}
		changed := c.Flags().Changed("profile") || c.Flags().Changed("controls") || c.Flags().Changed("without")
		if changed {
			cfg = overrideControls(cfg, cs, label)
		}
		if c.Flags().Changed("mutant") {
			if _, err := copperfin.ParseMutant(f.mutant); err != nil {
				return cfg, false, badInput("--mutant: %v", err)
			}
			cfg = copperfin.WithMutant(cfg, f.mutant)
		}
		return cfg, changed, nil
	}
	if f.listMutants {
		if n := c.Flags().NFlag(); n > 1 {
			return cfg, false, badInput("--list-mutants lists the mutants and runs nothing: give it alone (%d other flags given)", n-1)
		}
		var b strings.Builder
		for _, m := range copperfin.Mutants() {
			fmt.Fprintln(&b, m.Name)
		}
		if _, err := io.WriteString(c.OutOrStdout(), b.String()); err != nil {
			return cfg, false, outputError(err)
		}
		return cfg, false, cli.ErrDone
	}
	var base *model.Config
	if len(cfg.System) > 0 {
		base = &cfg
	}
	cs, label, err := f.cf.resolve(c, base)
	if err != nil {
		return cfg, false, err
	}
	out := copperfin.ConfigOfControls(cs)
	if label != "custom" {
		out = copperfin.ConfigOfProfile(copperfin.Profile(label))
	}
	if _, err := copperfin.ParseMutant(f.mutant); err != nil {
		return cfg, false, badInput("--mutant: %v", err)
	}
	if c.Flags().Changed("mutant") || base == nil {
		out = copperfin.WithMutant(out, f.mutant)
	} else {
		out = copperfin.WithMutant(out, copperfin.MutantOf(cfg))
	}
	out.Fixture = cfg.Fixture
	return out, true, nil
}

// Help describes the flags on replay and explore.
func (f *referenceFlags) Help(command string) string {
	if command == "replay" {
		return `The reference system's flags: --profile, --controls and --without change only
the control selection (the file's fixture, mutant, retry budget, deadline and
join policy stay). --without alone removes controls from the file's own set;
with --profile or --controls it removes them from that set. --mutant runs a
seeded defect ('' removes the file's).`
	}
	return `The reference system's flags: --profile (default typed) or --controls select
the controls, --without removes some from that set, --mutant explores a seeded
defect (--list-mutants names them). Given none of them, --config's system part
is explored as it is.`
}

// Header names the control set replay's first line ends with.
func (f *referenceFlags) Header(cfg model.Config) (string, error) {
	cs, err := copperfin.ControlsOf(cfg)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("(controls: %s)", cs), nil
}
