package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// faultlineModule is the module whose version "version" names beside the
// program's own when a user's program depends on it.
const faultlineModule = "github.com/faultline/faultline"

// versionText is what "PROG version" and "PROG --version" print: the
// program's name, its main module's path and version (go build in a git
// checkout stamps a pseudo-version, "+dirty" for a modified tree;
// "(devel)" when it stamped none), the VCS revision and time it was built from,
// with "(modified)" for a dirty work tree, faultline's own version when
// the program is a user's, and the Go version. A binary without build
// information (rare: a stripped build) says so.
func (p *Program) versionText(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return p.name() + " version unknown (the binary carries no build information)\n"
	}
	var b strings.Builder
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(&b, "%s version %s\n", p.name(), v)
	if info.Main.Path != "" {
		fmt.Fprintf(&b, "module %s %s\n", info.Main.Path, v)
	}
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	if r := set["vcs.revision"]; r != "" {
		line := "revision " + r
		if t := set["vcs.time"]; t != "" {
			line += " " + t
		}
		if set["vcs.modified"] == "true" {
			line += " (modified)"
		}
		fmt.Fprintln(&b, line)
	}
	if info.Main.Path != faultlineModule {
		for _, d := range info.Deps {
			if d.Path == faultlineModule {
				fv := d.Version
				if d.Replace != nil {
					fv += " => " + d.Replace.Path
					if d.Replace.Version != "" {
						fv += " " + d.Replace.Version
					}
				}
				fmt.Fprintf(&b, "faultline %s\n", fv)
			}
		}
	}
	fmt.Fprintf(&b, "go %s\n", info.GoVersion)
	return b.String()
}

// versionCmd is "PROG version"; the root's --version prints the same.
func (p *Program) versionCmd(text string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the program's module version and VCS revision",
		Long: `Print the program's module version (a build in a git checkout carries a
pseudo-version such as v0.0.0-20261207132527-7443789e90a8, "+dirty" for a
modified tree, or "(devel)" when the build recorded no VCS information), the
VCS revision and time it was built from ("(modified)" when the work tree had
changes), faultline's version when the program is another module's, and
the Go version, from the binary's build information. "--version" prints the
same. Exit codes: 0 printed; 2 bad input (an argument); 4 the output could not
be written.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(c.OutOrStdout(), text)
			return OutputError(err)
		},
	}
}
