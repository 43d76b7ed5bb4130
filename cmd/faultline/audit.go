package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model/copperfin"
)

func init() { commands = append(commands, newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var covFile, format, compat string
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audit the built-in reference system under baseline, typed and fail_closed",
		Long: `Run the reference system (the paper's Copperfin refund workflow) under the
baseline, typed and fail_closed profiles across the whole fault catalogue: one
single-fault run per kind (a table of outcome terms by fault mode) and an assay
of 2000 trials with seed 188 (the release assessment), then a summary line per
profile, then the release evidence: the fault-transfer signature of every
typed fault with 95 % Wilson intervals, the release-envelope region of each
profile with its reasons, the counterfactual containment pairs, the transfer
coefficients, the diagnosis of every counterexample, the unresolved holds,
the stop conditions met and the configuration variation. Then the coverage of
the single-fault runs, profile by profile: each key's status under each
profile (which broke under baseline, which held under typed), the
counterexamples beside their keys and profiles, and the keys not visited or
not reachable, with reasons.

--compat paper188 restricts all of it to the paper's ten modes (the assay
then equals the paper's artefact, and the evidence rests on the paper's
trial plan). --format text (default) prints tables for people, json one
object, markdown the same for a pull request. --coverage FILE (or
FAULTLINE_COVERAGE=FILE) merges the single-fault runs' coverage into FILE.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if format != "text" && format != "json" && format != "markdown" {
				return badInput("--format: unknown format %q (valid: text, json, markdown)", format)
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			audits, err := assay.Audit(copperfin.Profiles, compat != "")
			if err != nil {
				return err
			}
			cfg := assay.DefaultEvidenceConfig()
			cfg.Compat = compat != ""
			ev, err := assay.Gather(cfg)
			if err != nil {
				return err
			}
			out := c.OutOrStdout()
			switch format {
			case "json":
				err = writeAuditJSON(out, audits, ev, compat)
			case "markdown":
				err = writeAuditMarkdown(out, audits, ev, compat)
			default:
				err = writeAudit(out, audits, ev, compat)
			}
			if err != nil {
				return err
			}
			if format != "text" {
				// the coverage file is still written when asked
				return writeAuditCoverage(io.Discard, audits, coveragePath(covFile))
			}
			covOut := out
			if compat != "" {
				covOut = io.Discard // the paper's ten are audited without the catalogue's coverage
			}
			if err := writeAuditCoverage(covOut, audits, coveragePath(covFile)); err != nil {
				return err
			}
			_, err = fmt.Fprintf(out, "\n%s\n", assay.Boundary)
			return err
		},
	}
	c.Flags().StringVar(&covFile, "coverage", "", "merge the audit's coverage into this file (default $"+coverageEnv+")")
	c.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown")
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 audits only the paper's ten modes")
	return c
}

func mark(b bool) string {
	if b {
		return "x"
	}
	return "."
}

// kindsLabel says which fault kinds an audit covers.
func kindsLabel(audits []assay.ProfileAudit, compat string) string {
	n := 0
	if len(audits) > 0 {
		n = len(audits[0].Rows)
	}
	if compat != "" {
		return fmt.Sprintf("%d fault kinds (the paper's modes, --compat %s)", n, compat)
	}
	return fmt.Sprintf("%d fault kinds (the whole catalogue)", n)
}

func writeAudit(w io.Writer, audits []assay.ProfileAudit, ev *assay.Evidence, compat string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "faultline audit: reference system (Copperfin refund workflow), %s, profiles %d\n",
		kindsLabel(audits, compat), len(audits))
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
	if ev != nil {
		if err := ev.WriteText(&b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAuditJSON prints the audit as one object: per profile its rows and
// its assay (the artefact's object), and the release evidence.
func writeAuditJSON(w io.Writer, audits []assay.ProfileAudit, ev *assay.Evidence, compat string) error {
	type profileJSON struct {
		Profile  copperfin.Profile `json:"profile"`
		Controls string            `json:"controls"`
		Rows     []assay.KindRow   `json:"rows"`
		Assay    map[string]any    `json:"assay"`
	}
	out := struct {
		Compat   string          `json:"compat,omitempty"`
		Profiles []profileJSON   `json:"profiles"`
		Evidence *assay.Evidence `json:"evidence"`
		Boundary string          `json:"interpretation_boundary"`
	}{Compat: compat, Evidence: ev, Boundary: assay.Boundary}
	for _, a := range audits {
		out.Profiles = append(out.Profiles, profileJSON{Profile: a.Profile, Controls: a.Controls.String(), Rows: a.Rows, Assay: a.Assay.JSONObject()})
	}
	return assay.WriteJSON(w, out)
}

// writeAuditMarkdown prints the audit as Markdown for a pull request.
func writeAuditMarkdown(w io.Writer, audits []assay.ProfileAudit, ev *assay.Evidence, compat string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# faultline audit\n\nReference system (Copperfin refund workflow), %s, %d profiles; one single-fault run per kind judged by the oracle (x = term holds) and an assay of %d trials with seed %d.\n",
		kindsLabel(audits, compat), len(audits), assay.AuditTrials, assay.AuditSeed)
	fmt.Fprintln(&b, "\n## Summary")
	fmt.Fprintln(&b, "\n| profile | assessment | unsafe | unproved | contained | useful service |\n| --- | --- | --- | --- | --- | --- |")
	for _, a := range audits {
		o := a.Assay.Overall.Rates()
		fmt.Fprintf(&b, "| %s | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", a.Profile, a.Assay.Assessment, 100*o.UnsafeEscape, 100*o.UnverifiableRelease, 100*o.Contained, 100*o.UsefulService)
	}
	for _, a := range audits {
		fmt.Fprintf(&b, "\n## Profile %s (controls: %s)\n\n", a.Profile, a.Controls)
		fmt.Fprintln(&b, "| kind | domain | verdict | detect | contain | recover | verify | service | unsafe | dupe | unproved | loss | effects | violated |")
		fmt.Fprintln(&b, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, r := range a.Rows {
			t := r.Terms
			v := strings.Join(r.Violated, ", ")
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s |\n", r.Kind, r.Domain, t.Verdict,
				mark(t.Detected), mark(t.Contained), mark(t.Recovered), mark(t.Verified), mark(t.UsefulService),
				mark(t.UnsafeEscape), mark(t.DuplicateEffect), mark(t.UnverifiableRelease), mark(t.ServiceLoss), t.Effects, v)
		}
	}
	if err := ev.WriteMarkdown(&b, 2); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s\n", assay.Boundary)
	_, err := io.WriteString(w, b.String())
	return err
}
