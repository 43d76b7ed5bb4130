package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

func init() { commands = append(commands, newAssayCmd) }

func newAssayCmd() *cobra.Command {
	var cf configFlags
	var compat, fault string
	var modes []string
	var trials int
	var seed int64
	var asJSON bool
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
trials visited into FILE.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cs, label, err := cf.resolve(c, nil)
			if err != nil {
				return err
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			if trials < 1 {
				return badInput("--trials must be at least 1, got %d", trials)
			}
			domains := model.Domains
			if fault != "all" {
				d, err := model.ParseDomain(fault)
				if err != nil {
					return badInput("--fault: %v (or all)", err)
				}
				domains = []model.Domain{d}
			}
			cfg := assay.Config{Profile: label, Controls: cs, Domains: domains,
				Trials: trials, Seed: seed, Compat: compat == "paper188", Kinds: modes}
			tracker, covPath := coverage.NewTracker(nil), coveragePath(covFile)
			if covPath != "" {
				cfg.Observe = tracker.Record
			}
			rep, err := assay.Run(cfg)
			if errors.Is(err, assay.ErrBadConfig) {
				return badInput("%v", err)
			}
			if err != nil {
				return err
			}
			if err := flushCoverage(tracker, covPath); err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(c.OutOrStdout())
			}
			return rep.WriteText(c.OutOrStdout())
		},
	}
	cf.add(c, "typed", false)
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 draws only the paper's ten modes, as its artefact does")
	c.Flags().StringVar(&fault, "fault", "all", "fault domain: all, identity, context, tool, state or evidence")
	c.Flags().StringSliceVar(&modes, "mode", nil, "draw only these fault kinds (comma-separated), e.g. timeout_after_commit; default every kind of the --fault domains")
	c.Flags().IntVar(&trials, "trials", 2000, "number of trials (at least 1)")
	c.Flags().Int64Var(&seed, "seed", 188, "seed of the trial generator (taken mod 2^32)")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON object instead of the table")
	c.Flags().StringVar(&covFile, "coverage", "", "merge the trials' coverage into this file (default $"+coverageEnv+")")
	return c
}
