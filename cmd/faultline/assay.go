package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/internal/complete"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/internal/progress"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

func init() { commands = append(commands, newAssayCmd) }

// isTerminal decides whether assay shows its progress on its error
// stream: only on a terminal. progressThrottle is the bar's
// progress.Options.Throttle (0: the default). Tests replace both.
var (
	isTerminal       = progress.IsTerminal
	progressThrottle time.Duration
)

func newAssayCmd() *cobra.Command {
	var cf configFlags
	var compat, fault string
	var modes []string
	var trials int
	var seed int64
	var asJSON bool
	var ofmt *outflag.Flag
	var covFile string
	c := &cobra.Command{
		Use:   "assay",
		Short: "Run the typed fault-transfer assay on the reference system",
		Long: `Run trials of the reference system under typed faults and print the outcome
terms per fault domain and overall, with the paper's release assessment.

Trials are chosen as the paper's artefact chooses them: domains in round robin
and one draw of its 32-bit linear congruential generator per trial to pick the
fault kind. With --compat paper188 only the paper's ten modes are drawn and the
output equals the artefact's for the same arguments; without it every kind of
the catalogue can be drawn. Every trial runs through the full model.

--coverage FILE (or FAULTLINE_COVERAGE=FILE) merges the coverage keys the
trials visited into FILE.

--trials is at most 100000000. The table (or --json) on stdout is the
artefact's; when some trials' faults were not reached (their event never
occurred, or they had nothing to act on), stderr says how many, by kind.

Exit codes: 0 the assay ran and at least one trial's fault was reached and
fired; 2 bad input; 3 inconclusive: no trial's fault was reached at all;
4 an I/O or internal error (the output or --coverage could not be written).
The release assessment (PASS or BLOCK) is part of the output, not of the
exit code: gate on it with "faultline audit" or the JSON.

When stderr is a terminal (and without --json), a progress line on stderr
shows the trials done of --trials, the rate, the unsafe trials so far (an
unsafe escape, a duplicate effect or an unverifiable release) and the time
left; it is cleared before the output. Nothing of it is written to a pipe
or a file.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return badInput("%v", err)
			}
			asJSON = format == "json"
			cs, label, err := cf.resolve(c, nil)
			if err != nil {
				return err
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			if err := checkCount("trials", trials, 1, maxTrials); err != nil {
				return err
			}
			domains := model.Domains
			if fault != "all" {
				d, err := model.ParseDomain(fault)
				if err != nil {
					return badInput("--fault: %v (or all)", err)
				}
				domains = []model.Domain{d}
			}
			cfg := assay.Config{Profile: label, System: copperfin.ConfigOfControls(cs).System, Domains: domains,
				Trials: trials, Seed: seed, Compat: compat == "paper188", Kinds: modes}
			tracker, covPath := newTracker(nil), coveragePath(covFile)
			if err := cli.CheckCoverageFile(coverageFlag(covFile), covPath); err != nil {
				return err
			}
			if covPath != "" {
				cfg.Observe = tracker.Record
			}
			defer collectLazily(trials)()
			var bar *progress.Bar
			if !asJSON && isTerminal(c.ErrOrStderr()) {
				bar = progress.New(trials, progress.Options{Writer: c.ErrOrStderr(), Unit: "trials", Found: "unsafe", Throttle: progressThrottle})
				cfg.Progress = bar.Update
			}
			rep, err := assay.Run(copperfin.Definition(), cfg)
			if bar != nil {
				bar.Finish()
			}
			if errors.Is(err, assay.ErrBadConfig) {
				return badInput("%v", err)
			}
			if err != nil {
				return err
			}
			if err := flushCoverage(tracker, covPath); err != nil {
				return err
			}
			reach, err := assayReach(rep, cs)
			if err != nil {
				return err
			}
			if asJSON {
				err = paper.WriteJSON(c.OutOrStdout(), rep)
			} else {
				err = paper.WriteText(c.OutOrStdout(), rep)
			}
			if err != nil {
				return outputError(err)
			}
			return reach.exit(c.ErrOrStderr())
		},
	}
	cf.add(c, "typed", false)
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 draws only the paper's ten modes, as its artefact does")
	c.Flags().StringVar(&fault, "fault", "all", "fault domain: all, identity, context, tool, state or evidence")
	c.Flags().StringSliceVar(&modes, "mode", nil, "draw only these fault kinds (comma-separated), e.g. timeout_after_commit; default every kind of the --fault domains")
	c.Flags().IntVar(&trials, "trials", 2000, "number of trials (1 to 100000000)")
	c.Flags().Int64Var(&seed, "seed", 188, "seed of the trial generator (taken mod 2^32)")
	ofmt = outflag.Add(c, "the assay", "text", "json")
	c.Flags().StringVar(&covFile, "coverage", "", "merge the trials' coverage into this file (default $"+coverageEnv+")")
	complete.Values(c, "compat", compatNames)
	complete.Values(c, "fault", func() []string {
		out := []string{"all"}
		for _, d := range model.Domains {
			out = append(out, string(d))
		}
		return out
	})
	complete.Values(c, "mode", func() []string {
		out := []string{}
		for _, s := range model.Catalogue() {
			out = append(out, s.Kind)
		}
		return out
	})
	return c
}

// assayHeap is the heap, in bytes, the assay's trial loop may grow to
// beyond its plan (a byte a trial) before the collector runs.
const assayHeap = 64 << 20

// collectLazily sets the collector for an assay of trials trials and
// returns the function that restores the settings before it. The trial
// loop allocates short-lived garbage over a small live heap (the plan and
// a few megabytes): rather than collect every few megabytes (the GOGC
// percentage; 400 collected about ten times in 200,000 trials, its write
// barriers on for a fifth of the run), the collector runs only when the
// heap reaches assayHeap plus the plan, or the process's memory limit
// (GOMEMLIMIT) when that is lower.
func collectLazily(trials int) (restore func()) {
	limit := int64(assayHeap) + int64(trials)
	prevLimit := debug.SetMemoryLimit(-1) // reads it
	limit = min(limit, prevLimit)
	prevPercent := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	return func() {
		debug.SetMemoryLimit(prevLimit)
		debug.SetGCPercent(prevPercent)
	}
}

// reach counts the trials of an assay whose fault was not reached or did
// not fire: each trial of a kind runs the kind's one single-fault schedule,
// so one replay per drawn kind tells it for all of its trials.
type reach struct {
	trials, untested int
	kinds            []string // "kind (N trials)" of the kinds not tested
}

// assayReach replays each kind rep drew, once, under cs.
func assayReach(rep *assay.Report, cs copperfin.Controls) (*reach, error) {
	r := &reach{trials: rep.Overall.Trials}
	def := copperfin.Definition()
	names := make([]string, 0, len(rep.ByKind))
	for k, n := range rep.ByKind {
		if n.Trials > 0 {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		s, err := model.SingleFault(k, copperfin.ConfigOfControls(cs))
		if err != nil {
			return nil, err
		}
		res, err := def.Replay(s)
		if err != nil {
			return nil, err
		}
		if f := res.Faults; len(f) == 1 && f[0].Reached && f[0].Fired > 0 {
			continue
		}
		n := rep.ByKind[k].Trials
		r.untested += n
		r.kinds = append(r.kinds, fmt.Sprintf("%s (%d trials)", k, n))
	}
	return r, nil
}

// exit reports the untested trials on w and returns the exit code: 3 when
// no trial's fault was reached and fired.
func (r *reach) exit(w io.Writer) error {
	if r.untested == 0 {
		return nil
	}
	if r.untested == r.trials {
		return inconclusive("inconclusive: none of the %d trials' faults was reached and fired (%s): the assay tested no fault", r.trials, strings.Join(r.kinds, ", "))
	}
	if _, err := fmt.Fprintf(w, "faults not reached or not fired in %d of %d trials: %s\n", r.untested, r.trials, strings.Join(r.kinds, ", ")); err != nil {
		return outputError(err)
	}
	return nil
}
