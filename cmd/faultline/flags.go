package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

// configFlags are the shared --profile, --controls and --without flags.
type configFlags struct {
	profile  string
	controls []string
	without  []string
}

func (f *configFlags) add(c *cobra.Command, defaultProfile string, withWithout bool) {
	c.Flags().StringVar(&f.profile, "profile", defaultProfile, "control profile: baseline, typed or fail_closed")
	c.Flags().StringSliceVar(&f.controls, "controls", nil, "explicit control list, comma-separated (empty means no control); overrides --profile")
	if withWithout {
		c.Flags().StringSliceVar(&f.without, "without", nil, "controls to remove from the selected set, comma-separated")
	}
}

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

// Bounds of the count flags. A count is work the command does and memory
// it allocates (assay plans every trial up front), so each has a ceiling
// named in its error.
const (
	// maxTrials bounds assay --trials.
	maxTrials = 100_000_000
	// maxChecks bounds explore --checks.
	maxChecks = 100_000_000
	// maxFaultsLimit bounds explore --max-faults (the exploration's own
	// limit).
	maxFaultsLimit = 16
)

// checkCount returns bad input naming the flag and the limits unless
// lo <= v <= hi.
func checkCount(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return badInput("--%s must be between %d and %d, got %d", flag, lo, hi, v)
	}
	return nil
}
