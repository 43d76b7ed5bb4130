package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/model"
)

// matrixCmd is "matrix": the harness practice's fault matrix of a
// registered system (coverage.FaultMatrix).
func (p *Program) matrixCmd() *cobra.Command {
	var so systemOptions
	var fixture string
	var ofmt *outflag.Flag
	c := &cobra.Command{
		Use:   "matrix",
		Short: "Pick the smallest set of single faults that visits every coverage key a single fault can (the fault matrix to run first)",
		Long: `Place every kind of the catalogue once on the system's fault-free run (on
--fixture, under --config), and each placement again under each correlation
modifier its kind takes that the config's exploration draws (repeated and
persistent always; synchronized with two or more workers, shared with two or
more tenants); replay each, and pick the fault matrix to run first by greedy
set cover over the coverage keys each run visits (its fault reached and
fired): at each step the single fault that adds the most keys not yet
visited, ties in catalogue order, modifiers last. Each single fault visits
one key, so the cover is the smallest. Printed: the chosen faults with their
modifier, key and run verdict, how many runs were made, and the reachable
keys no single fault visits (a modifier the config does not draw, a kind
outside the catalogue, or an event the system never crosses). A system of
production code (its Definition has a Clock) runs only in a test's bubbles:
call coverage.FaultMatrixIn from a test (exit 2 here).

Exit codes: 0 the matrix was computed; 2 bad input (an unknown system or
fixture, a config the system refuses, production code); 3 no single fault visited any key; 4
an I/O or internal error.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			sys, err := so.systemPart(c)
			if err != nil {
				return err
			}
			def, err := p.systemOf(&model.Schedule{Config: model.Config{Fixture: fixture}}, so.system)
			if err != nil {
				return BadInput("%w", err)
			}
			if err := runnable(def); err != nil {
				return err
			}
			if _, err := def.Fixture(fixture); err != nil {
				return BadInput("--fixture: %w", err)
			}
			m, err := coverage.FaultMatrix(marking(def), fixture, model.Config{System: sys}, nil)
			if err != nil {
				return BadInput("%w", err)
			}
			if format == "json" {
				err = writeJSON(c.OutOrStdout(), m)
			} else {
				err = writeMatrix(c.OutOrStdout(), def, m)
			}
			if err != nil {
				return OutputError(err)
			}
			if len(m.Rows) == 0 {
				return Inconclusive("inconclusive: no single fault of the catalogue visited a key of %s", def.Name)
			}
			return nil
		},
	}
	so.add(p, c, "matrix")
	c.Flags().StringVar(&fixture, "fixture", "", "workload, one of the system's fixtures (default: the system's first)")
	ofmt = outflag.Add(c, "the matrix", "text", "json")
	return c
}

// writeMatrix prints m as people read it.
func writeMatrix(w io.Writer, def *model.Definition, m *coverage.Matrix) error {
	var b strings.Builder
	modified := 0
	for _, r := range m.Rows {
		if r.Schedule.Faults[0].Correlation != "" {
			modified++
		}
	}
	fmt.Fprintf(&b, "Fault matrix of %s: %d single faults visit %d keys, %d of them under a correlation modifier (greedy set cover over %d single-fault runs).\n",
		def.Name, len(m.Rows), len(m.Visited), modified, m.Candidates)
	at := 22 // the placement column: "tool.commit(TOOL)#n" may be wider
	for _, r := range m.Rows {
		at = max(at, len(r.Schedule.Faults[0].Placement()))
	}
	for i, r := range m.Rows {
		keys := make([]string, len(r.Keys))
		for j, k := range r.Keys {
			keys[j] = k.String()
		}
		kind := r.Kind
		if f := r.Schedule.Faults[0]; f.Correlation != "" {
			kind += " " + string(f.Correlation)
		}
		fmt.Fprintf(&b, "  %2d %-37s at %-*s %-18s %s\n", i+1, kind, at, r.Schedule.Faults[0].Placement(), r.Verdict, strings.Join(keys, ", "))
	}
	fmt.Fprintf(&b, "Reachable keys no single fault visits (a modifier this config does not draw, a kind outside the catalogue, an event never crossed): %d\n", len(m.Unvisited))
	for _, k := range m.Unvisited {
		fmt.Fprintf(&b, "  %s\n", k)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
