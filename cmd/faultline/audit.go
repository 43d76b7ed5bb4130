package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
)

func init() { commands = append(commands, newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var covFile string
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audit the built-in reference system under baseline, typed and fail_closed",
		Long: `Run the reference system (the paper's Copperfin refund workflow) under the
baseline, typed and fail_closed profiles across the whole fault catalogue: one
single-fault run per kind (a table of outcome terms by fault mode) and an assay
of 2000 trials with seed 188 (the release assessment), then a summary line per
profile. Then the coverage of the single-fault runs, profile by profile: each
key's status under each profile (which broke under baseline, which held under
typed), the counterexamples beside their keys and profiles, and the keys not
visited or not reachable, with reasons. --coverage FILE (or
FAULTLINE_COVERAGE=FILE) merges that coverage into FILE.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			audits, err := assay.Audit(model.Profiles)
			if err != nil {
				return err
			}
			if err := writeAudit(c.OutOrStdout(), audits); err != nil {
				return err
			}
			return writeAuditCoverage(c.OutOrStdout(), audits, coveragePath(covFile))
		},
	}
	c.Flags().StringVar(&covFile, "coverage", "", "merge the audit's coverage into this file (default $"+coverageEnv+")")
	return c
}

func mark(b bool) string {
	if b {
		return "x"
	}
	return "."
}

func writeAudit(w io.Writer, audits []assay.ProfileAudit) error {
	var b strings.Builder
	fmt.Fprintf(&b, "faultline audit: reference system (Copperfin refund workflow), %d fault kinds, profiles %d\n",
		len(model.Catalogue()), len(audits))
	fmt.Fprintln(&b, "Each row is one single-fault run judged by the oracle (x = term holds).")
	for _, a := range audits {
		fmt.Fprintf(&b, "\n== profile %s (controls: %s)\n", a.Profile, a.Controls)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "kind\tdomain\tverdict\tdetect\tcontain\trecover\tverify\tservice\tunsafe\tdupe\tunproved\tloss\teffects\tviolated")
		for _, r := range a.Rows {
			t := r.Terms
			v := strings.Join(r.Violated, ",")
			if v == "" {
				v = "-"
			}
			if !r.Reached {
				v += " (fault not reached)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Kind, r.Domain, t.Verdict,
				mark(t.Detected), mark(t.Contained), mark(t.Recovered), mark(t.Verified), mark(t.UsefulService),
				mark(t.UnsafeEscape), mark(t.DuplicateEffect), mark(t.UnverifiableRelease), mark(t.ServiceLoss), t.Effects, v)
		}
		tw.Flush()
		o := a.Assay.Overall.Rates()
		fmt.Fprintf(&b, "assay (%d trials, seed %d): contained %.1f%%, recovered %.1f%%, verified %.1f%%, useful service %.1f%%, unsafe %.1f%%, duplicate %.1f%%, unproved %.1f%%\n",
			o.Trials, assay.AuditSeed, 100*o.Contained, 100*o.Recovered, 100*o.Verified, 100*o.UsefulService,
			100*o.UnsafeEscape, 100*o.DuplicateEffect, 100*o.UnverifiableRelease)
		fmt.Fprintf(&b, "assessment: %s\n", a.Assay.Assessment)
		for _, r := range a.Assay.Reasons {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	fmt.Fprintln(&b, "\nSummary:")
	for _, a := range audits {
		o := a.Assay.Overall.Rates()
		fmt.Fprintf(&b, "  %-12s %-28s unsafe %5.1f%%  unproved %5.1f%%  contained %5.1f%%  useful service %5.1f%%\n",
			a.Profile, a.Assay.Assessment, 100*o.UnsafeEscape, 100*o.UnverifiableRelease, 100*o.Contained, 100*o.UsefulService)
	}
	fmt.Fprintf(&b, "\n%s\n", assay.Boundary)
	_, err := io.WriteString(w, b.String())
	return err
}
