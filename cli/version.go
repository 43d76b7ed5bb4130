package cli

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/internal/buildvcs"
	"github.com/faultline/faultline/internal/outflag"
)

// faultlineModule is the module whose version "version" names beside the
// program's own when a user's program depends on it.
const faultlineModule = "github.com/faultline/faultline"

// versionInfo is what "PROG version" prints, read from the binary's
// build information; its JSON (--format json) is one object of these
// fields, those the build did not record left out.
type versionInfo struct {
	Program   string `json:"program"`
	Known     bool   `json:"build_info"` // false: the binary carries no build information
	Module    string `json:"module,omitempty"`
	Version   string `json:"version,omitempty"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	Faultline string `json:"faultline,omitempty"` // a user's program: the faultline it was built with
	Go        string `json:"go,omitempty"`
}

// versionOf reads the program's version from info (ok false: none): the
// main module's path and version (go build in a git checkout stamps a
// pseudo-version, "+dirty" for a modified tree; "(devel)" when it stamped
// none), the VCS revision, time and modified flag, faultline's own
// version when the program is a user's, and the Go version.
func (p *Program) versionOf(info *debug.BuildInfo, ok bool) versionInfo {
	vi := versionInfo{Program: p.name(), Known: ok && info != nil}
	if !vi.Known {
		return vi
	}
	vi.Module, vi.Version, vi.Go = info.Main.Path, info.Main.Version, info.GoVersion
	if vi.Version == "" {
		vi.Version = "(devel)"
	}
	vcs := buildvcs.Of(info.Settings)
	vi.Revision, vi.Time, vi.Modified = vcs.Revision, vcs.Time, vcs.Modified != nil && *vcs.Modified
	if info.Main.Path != faultlineModule {
		for _, d := range info.Deps {
			if d.Path == faultlineModule {
				vi.Faultline = d.Version
				if d.Replace != nil {
					vi.Faultline += " => " + d.Replace.Path
					if d.Replace.Version != "" {
						vi.Faultline += " " + d.Replace.Version
					}
				}
			}
		}
	}
	return vi
}

// versionText is what "PROG version" and "PROG --version" print: the
// lines of versionOf (a revision line with its time and "(modified)" for a
// dirty work tree). A binary without build information (rare: a stripped
// build) says so.
func (p *Program) versionText(info *debug.BuildInfo, ok bool) string {
	vi := p.versionOf(info, ok)
	if !vi.Known {
		return vi.Program + " version unknown (the binary carries no build information)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s version %s\n", vi.Program, vi.Version)
	if vi.Module != "" {
		fmt.Fprintf(&b, "module %s %s\n", vi.Module, vi.Version)
	}
	if vi.Revision != "" {
		line := "revision " + vi.Revision
		if vi.Time != "" {
			line += " " + vi.Time
		}
		if vi.Modified {
			line += " (modified)"
		}
		fmt.Fprintln(&b, line)
	}
	if vi.Faultline != "" {
		fmt.Fprintf(&b, "faultline %s\n", vi.Faultline)
	}
	fmt.Fprintf(&b, "go %s\n", vi.Go)
	return b.String()
}

// versionCmd is "PROG version"; the root's --version prints the same
// (Run turns "--version [--format F]" into "version [--format F]").
func (p *Program) versionCmd() *cobra.Command {
	var ofmt *outflag.Flag
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the program's module version and VCS revision",
		Long: `Print the program's module version (a build in a git checkout carries a
pseudo-version such as v0.0.0-20261207132527-7443789e90a8, "+dirty" for a
modified tree, or "(devel)" when the build recorded no VCS information), the
VCS revision and time it was built from ("(modified)" when the work tree had
changes), faultline's version when the program is another module's, and
the Go version, from the binary's build information. "--version" prints the
same. --format json prints one object: program, build_info, module,
version, revision, time, modified, faultline, go (those the build did not
record left out). Exit codes: 0 printed; 2 bad input (an argument, an
unknown --format); 4 the output could not be written.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			info, ok := debug.ReadBuildInfo()
			if format == "json" {
				b, err := json.Marshal(p.versionOf(info, ok))
				if err != nil {
					return err
				}
				_, err = c.OutOrStdout().Write(append(b, '\n'))
				return OutputError(err)
			}
			_, err = fmt.Fprint(c.OutOrStdout(), p.versionText(info, ok))
			return OutputError(err)
		},
	}
	ofmt = outflag.Add(c, "the version", "text", "json")
	return c
}

// versionArgs turns a command line that asks for the root's --version with
// only the version command's flags (--format F, --json) into that
// command's ("version --format json"), so that --version takes them too.
func versionArgs(args []string) []string {
	at, rest := -1, []string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--version" && at < 0:
			at = i
		case a == "--format" && i+1 < len(args):
			rest = append(rest, a, args[i+1])
			i++
		case strings.HasPrefix(a, "--format=") || a == "--json" || strings.HasPrefix(a, "--json="):
			rest = append(rest, a)
		default:
			return args
		}
	}
	if at < 0 || len(rest) == 0 {
		return args
	}
	return append([]string{"version"}, rest...)
}
