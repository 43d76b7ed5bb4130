package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/outflag"
)

// CoverageEnv names the environment variable that asks every command that
// runs a system to record coverage into one file.
const CoverageEnv = "FAULTLINE_COVERAGE"

// CoveragePath returns the coverage file a command records into: its
// --coverage flag, else $FAULTLINE_COVERAGE, else "" (no recording).
func CoveragePath(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(CoverageEnv)
}

// FlushCoverage merges t into the file at path (when path is set); a
// failure is an error with its exit code (writeError).
func FlushCoverage(t *coverage.Tracker, path string) error {
	if path == "" {
		return nil
	}
	if err := t.FlushTo(path); err != nil {
		return writeError(fmt.Errorf("recording coverage into %s: %w", path, err))
	}
	return nil
}

// readCoverage reads a coverage file: a missing or invalid file is bad
// input (2), an I/O error reading it is exit 4.
func readCoverage(path string) (*coverage.Data, error) {
	d, err := coverage.ReadFile(path)
	if err != nil {
		return nil, InputError(err)
	}
	return d, nil
}

func (p *Program) coverageCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "coverage",
		Short: "Report, merge and gate coverage files (keys domain/boundary/phase/correlation/oracle)",
		Long: `Coverage files record which coverage keys K = (domain, boundary, phase,
correlation, oracle) runs visited. "audit --coverage FILE", "explore --coverage
FILE" (and the faultline command's "assay --coverage FILE"), and any command or
test run with FAULTLINE_COVERAGE=FILE merge their runs into FILE. A key counts
as visited only when its fault reached its boundary, fired, and the oracle
adjudicated the run.

"coverage" alone prints this help; an unknown subcommand is bad input (exit
2).`,
	}
	c.AddCommand(p.coverageReportCmd(), newCoverageMergeCmd(), newCoverageGateCmd())
	return c
}

func (p *Program) coverageReportCmd() *cobra.Command {
	var schedules string
	var ofmt *outflag.Flag
	c := &cobra.Command{
		Use:   "report FILE",
		Short: "Print a coverage report: text, json, markdown or html",
		Long: `Print the report of a coverage file: visited over reachable keys, every key
with its status and counterexamples beside it, the unvisited reachable keys
and the unreachable keys grouped by reason, per-dimension marginals, pairwise
(t = 2) coverage and, in html, three heatmaps (domain × phase, boundary ×
oracle, correlation × domain) on one self-contained page.

A file records which systems its runs came from (each tracker's
model.Definition names its system). The ratio is over the systems'
universe, the keys they can reach; each key left out is listed with why:
never crossed (no recorded run crossed its event), not applicable (its
boundary, or a key pattern with the system's reason, in
model.Definition.NotApplicable and NotApplicableKeys), not enacted (no kind
of it is in model.Definition.Enacts, the kinds a production path's
adapters enact) or not drawn (a correlation modifier the systems'
exploration does not draw). Invariants are any a system declares
(lower-case letters, digits and underscores).

--schedules DIR writes every schedule the report refers to into DIR, so each
replay command in the report runs as printed: the system's own command (its
replay template, for example a go test line), or this program's replay
command for a system that recorded none.

Exit codes: 0 report printed, 2 bad input (a missing or invalid file, an
unknown format), 4 an I/O error (reading the file, writing the report or
--schedules).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			var write func(*coverage.Report, io.Writer) error
			switch format {
			case "text":
				write = (*coverage.Report).WriteText
			case "json":
				write = (*coverage.Report).WriteJSON
			case "markdown":
				write = (*coverage.Report).WriteMarkdown
			case "html":
				write = (*coverage.Report).WriteHTML
			default:
				return BadInput("--format: unknown format %q (valid: text, json, markdown, html)", format)
			}
			d, err := readCoverage(args[0])
			if err != nil {
				return err
			}
			dir := schedules
			for _, sys := range d.Systems {
				if sys.Replay != "" && dir != "" {
					// a system's own replay command (a go test line) runs
					// in its package's folder, not here: name the files by
					// their absolute path
					if dir, err = filepath.Abs(schedules); err != nil {
						return IOFailure(err)
					}
				}
			}
			// a system that recorded no replay command replays with this
			// program's when it is one of the program's systems; another's
			// line says how to replay it (this program cannot)
			replay := map[string]string{"": p.replayCommand(nil)}
			for name, sys := range d.Systems {
				if sys.Replay == "" && !slices.Contains(p.systemNames(), name) {
					replay[name] = foreignReplay(p.name(), name)
				}
			}
			r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{Dir: dir, Replay: replay})
			if schedules != "" {
				if err := r.WriteSchedules(schedules); err != nil {
					return err
				}
			}
			return write(r, c.OutOrStdout())
		},
	}
	ofmt = outflag.Add(c, "the report", "text", "json", "markdown", "html")
	c.Flags().StringVar(&schedules, "schedules", "", "write every schedule the report refers to into this folder")
	return c
}

func newCoverageMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT IN...",
		Short: "Merge coverage files into one",
		Long: `Merge coverage files (from several processes or machines) into OUT, written
atomically. Counts add; each key keeps the smallest schedule that visited it;
merge is associative and commutative, and merging a file with itself doubles
its counts. OUT may be one of the inputs; an existing OUT that is not an input
is replaced.

Every writer of a coverage file (merge, and the commands and tests that record
into it) holds its lock, the file OUT.lock left beside it, so merges into one
file and recorders beside them never lose an update.

Each system's runs add and its crossed events are united; one system declared
two ways (its not-applicable boundaries, enacted kinds, or not-applicable key
patterns, a reason's wording included) is refused, naming what differs: delete
the file, or record into a new one, under the new declaration.

Exit codes: 0 merged, 2 bad input (an input missing or invalid, a count
that would pass the largest integer, or one system declared two ways; OUT is
then unchanged), 4 an I/O error (reading an input, writing OUT).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			// the inputs are read under OUT's lock, the one every writer of
			// a coverage file takes, so a merge that names OUT among its
			// inputs never loses another writer's update
			var out *coverage.Data
			err := fileio.Replace(args[0], func() ([]byte, error) {
				out = &coverage.Data{Keys: map[coverage.Key]*coverage.Entry{}}
				for _, p := range args[1:] {
					d, err := readCoverage(p)
					if err != nil {
						return nil, err
					}
					if err := coverage.CheckMerge(out, d); err != nil {
						return nil, BadInput("merging %s: %v", p, err)
					}
					out = coverage.Merge(out, d)
				}
				var b bytes.Buffer
				if err := out.Write(&b); err != nil {
					return nil, err
				}
				return b.Bytes(), nil
			})
			if err != nil {
				return writeError(err)
			}
			r := coverage.NewReport(coverage.Default(), out, coverage.ReportOptions{}).Summary
			keys := universeLine(r, "the systems")
			_, err = fmt.Fprintf(c.OutOrStdout(), "merged %d files into %s: %d runs, %s\n", len(args)-1, args[0], r.Runs, keys)
			return OutputError(err)
		},
	}
}

func newCoverageGateCmd() *cobra.Command {
	var minRatio, require string
	var noViolations bool
	var ofmt *outflag.Flag
	c := &cobra.Command{
		Use:   "gate FILE",
		Short: "Fail unless enough keys, and every required key, were visited",
		Long: `Check a coverage file against a release gate and print the finding.

--min-ratio R requires visited/reachable >= R (R in [0,1]). --require KEYS_FILE
requires every key the file names: one pattern a line,
domain/boundary/phase/correlation/oracle, where "*" stands for any value (a
pattern with "*" requires every reachable key it matches); "#" starts a
comment; blank lines are ignored. A required key that no catalogue kind can
reach is unvisited, with the reason.

A ratio that is not met lists every unvisited key of the systems' universe
with why. The ratio line counts the keys declared not applicable; a
not-applicable declaration the file's own runs contradict (a run crossed an
event only that boundary has, or a fault of a declared key reached and
fired) fails the gate, listed: the universe the ratio is over rests on it.
The gate measures visits, not verdicts: it counts the recorded violations
of an invariant (a run once per invariant it broke) and passes with them,
unless --no-violations is given. The finding ends with the count of the
file's scheduled faults that were reached and fired, scheduled but not
reached, and reached but not fired.

--format json (or --json) prints the finding as one object: {"version": 2,
"passed", "ratio", "visited", "reachable", "applicable", "not_applicable",
"min_ratio" (when given), "required", "missing": [{"line", "requirement",
"key", "reason"}] (a key the ratio misses has line 0 and requirement
"min_ratio"), "contradicted_declarations": [{"system", "declaration", "key",
"evidence"}], "violations", "violated_keys", "no_violations", "faults":
{"reached_and_fired", "not_reached", "not_fired"}}.

Exit codes: 0 the gate is met; 1 it is not, with every unvisited key
listed with its reason (or a contradicted declaration, or, under
--no-violations, a violation); 2 bad input (a missing or invalid coverage or keys
file, a ratio outside [0,1], neither flag given); 3 inconclusive: the file
records no scheduled fault that was reached and fired, so there is nothing
to gate; 4 an I/O error reading a file or writing the finding.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			var opts coverage.GateOptions
			if c.Flags().Changed("min-ratio") {
				r, err := strconv.ParseFloat(minRatio, 64)
				// decimal only: ParseFloat also takes hexadecimal ("0x1p-2")
				// and underscores, which no one means as a ratio
				if err != nil || math.IsNaN(r) || r < 0 || r > 1 || strings.ContainsAny(minRatio, "xXpP_") {
					return BadInput("--min-ratio: %q is not a number in [0,1]", minRatio)
				}
				opts.MinRatio, opts.HasMinRatio = r, true
			}
			opts.NoViolations = noViolations
			if require != "" {
				b, err := fileio.ReadFile(require, fileio.ScheduleLimit)
				if err != nil {
					return InputError(fmt.Errorf("--require: %w", err))
				}
				if opts.Require, err = coverage.ParseRequirements(b); err != nil {
					return BadInput("--require %s: %v", require, err)
				}
			}
			if !opts.HasMinRatio && opts.Require == nil {
				return BadInput("give --min-ratio R, --require KEYS_FILE, or both")
			}
			d, err := readCoverage(args[0])
			if err != nil {
				return err
			}
			g, err := coverage.Gate(coverage.Default(), d, opts)
			if err != nil {
				return BadInput("%v", err)
			}
			visits, notReached, notFired := faultCounts(d)
			if visits == 0 {
				// nothing to judge: no pass is printed for it
				return Inconclusive("inconclusive: %s records %d runs and no scheduled fault that was reached and fired (%d scheduled but not reached, %d reached but not fired): the gate has nothing to judge", args[0], d.Runs, notReached, notFired)
			}
			if format == "json" {
				if err := writeGateJSON(c.OutOrStdout(), g, visits, notReached, notFired); err != nil {
					return OutputError(err)
				}
			} else {
				if err := g.WriteText(c.OutOrStdout()); err != nil {
					return OutputError(err)
				}
				if _, err := fmt.Fprintf(c.OutOrStdout(), "  faults: %d reached and fired; %d scheduled but not reached, %d reached but not fired\n", visits, notReached, notFired); err != nil {
					return OutputError(err)
				}
			}
			if !g.Passed() {
				return ErrViolation
			}
			return nil
		},
	}
	c.Flags().StringVar(&minRatio, "min-ratio", "", "least visited/reachable ratio, in [0,1]")
	c.Flags().StringVar(&require, "require", "", "keys file: one domain/boundary/phase/correlation/oracle pattern a line (* = any)")
	c.Flags().BoolVar(&noViolations, "no-violations", false, "fail the gate when a recorded run violated an invariant")
	ofmt = outflag.Add(c, "the finding", "text", "json")
	return c
}

// writeGateJSON writes the gate's finding as coverage gate --format json
// prints it.
func writeGateJSON(w io.Writer, g *coverage.GateResult, visits, notReached, notFired int) error {
	type faults struct {
		ReachedAndFired int `json:"reached_and_fired"`
		NotReached      int `json:"not_reached"`
		NotFired        int `json:"not_fired"`
	}
	j := struct {
		Version       int                      `json:"version"`
		Passed        bool                     `json:"passed"`
		Ratio         float64                  `json:"ratio"`
		Visited       int                      `json:"visited"`
		Reachable     int                      `json:"reachable"`
		Applicable    int                      `json:"applicable"`
		NotApplicable int                      `json:"not_applicable"`
		MinRatio      *float64                 `json:"min_ratio,omitempty"`
		Required      int                      `json:"required"`
		Missing       []coverage.Missing       `json:"missing"`
		Contradicted  []coverage.Contradiction `json:"contradicted_declarations"`
		Violations    int                      `json:"violations"`
		ViolatedKeys  int                      `json:"violated_keys"`
		NoViolations  bool                     `json:"no_violations"`
		Faults        faults                   `json:"faults"`
	}{2, g.Passed(), g.Ratio, g.Visited, g.Reachable, g.Applicable, g.NotApplicable, nil, g.Required,
		append(slices.Clone(g.Unvisited), g.Missing...), g.Contradicted, g.Violations, g.ViolatedKeys, g.NoViolations, faults{visits, notReached, notFired}}
	if g.HasMinRatio {
		j.MinRatio = &g.MinRatio
	}
	if j.Missing == nil {
		j.Missing = []coverage.Missing{}
	}
	if j.Contradicted == nil {
		j.Contradicted = []coverage.Contradiction{}
	}
	return writeJSON(w, j)
}

// faultCounts sums d's scheduled faults over its keys: reached and fired
// (visits), scheduled but not reached, reached but not fired.
func faultCounts(d *coverage.Data) (visits, notReached, notFired int) {
	for _, e := range d.Keys {
		visits += e.Visits
		notReached += e.NotReached
		notFired += e.NotFired
	}
	return visits, notReached, notFired
}

// universeLine writes a summary's visited keys over the universe of who
// ("the systems", "it"), and the reachable keys left out of it, by why.
func universeLine(r coverage.Summary, who string) string {
	if r.Applicable == r.Reachable {
		return fmt.Sprintf("%d of %d reachable keys visited", r.Visited, r.Reachable)
	}
	var out []string
	for _, c := range []struct {
		n    int
		what string
	}{{r.NeverCrossed, "never crossed"}, {r.NotApplicable, "not applicable"}, {r.NotEnacted, "not enacted"}, {r.NotDrawn, "not drawn"}} {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return fmt.Sprintf("%d of %d keys %s can reach visited (of %d reachable: %s)", r.Visited, r.Applicable, who, r.Reachable, strings.Join(out, ", "))
}

// foreignReplay is the replay line of a schedule of system sys, which
// program prog does not register and whose file recorded no replay
// command: how to replay it with the user's own program (one %s, the
// schedule file).
func foreignReplay(prog, sys string) string {
	esc := func(s string) string { return strings.ReplaceAll(s, "%", "%%") }
	return "(" + esc(sys) + " is not a system of " + esc(prog) + ": replay %s with the program that registers it (cli.Main: PROG replay FILE)" +
		" or its test (FAULTLINE_REPLAY=FILE go test -run TEST); its Definition.ReplayCommand puts that line here)"
}
