package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
)

func init() { commands = append(commands, newDossierCmd) }

func newDossierCmd() *cobra.Command {
	var profiles []string
	var out, compat string
	c := &cobra.Command{
		Use:   "dossier --out DIR [--profile P,...] [--compat paper188]",
		Short: "Write the fault dossier of the reference system (JSON and Markdown)",
		Long: `Gather the release evidence of the reference system and write the versioned
fault dossier into DIR: dossier.json for machines and dossier.md for a pull
request. The dossier holds the configured-system manifest (controls, catalogue
hash, module version and VCS revision from the build information, the hash of
every schedule and of the configuration), the fault specs, the baseline and
intervention runs, the declared stop conditions, the signatures, the release
placement of each profile, the counterfactual pairs, the coefficients, the
diagnoses, the configuration variation, the coverage summary, the unresolved
holds and the change triggers. Files are written atomically. The evidence
covers the whole fault catalogue; --compat paper188 restricts it to the
paper's ten modes.

"faultline dossier diff OLD NEW" shows what changed between two dossiers and
exits 1 when a change trigger fired.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == "" {
				return badInput("--out DIR is required")
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			cfg := assay.DefaultEvidenceConfig()
			cfg.Compat = compat != ""
			if len(profiles) > 0 {
				cfg.Profiles = nil
				seen := map[string]bool{}
				for _, p := range profiles {
					if _, err := model.ProfileControls(model.Profile(p)); err != nil {
						return badInput("--profile: %v", err)
					}
					if seen[p] {
						return badInput("--profile: %q given twice", p)
					}
					seen[p] = true
					cfg.Profiles = append(cfg.Profiles, model.Profile(p))
				}
			}
			d, err := assay.BuildDossier(cfg)
			if err != nil {
				return err
			}
			if err := assay.WriteDossier(out, d); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s/dossier.json and %s/dossier.md\n", out, out)
			return nil
		},
	}
	c.Flags().StringSliceVar(&profiles, "profile", nil, "profiles to include, comma-separated (default baseline,typed,fail_closed)")
	c.Flags().StringVar(&out, "out", "", "directory to write dossier.json and dossier.md into (created if missing)")
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 covers only the paper's ten modes")
	c.AddCommand(newDossierDiffCmd())
	return c
}

func newDossierDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changed between two dossiers; exit 1 when a change trigger fired",
		Long: `Compare two dossiers (each a dossier.json or a directory holding one): print
the change triggers whose fingerprints differ (tool semantics, state schema,
policy, retry logic, orchestration, evidence routing) and a diff of the rest.

Exit codes: 0 no change trigger fired, 1 a change trigger fired (the release
gate reopens), 2 bad input (a missing or malformed dossier).`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			d, err := assay.DiffDossiers(args[0], args[1])
			if err != nil {
				return inputError(err)
			}
			return writeDossierDiff(c.OutOrStdout(), d)
		},
	}
}

func writeDossierDiff(w io.Writer, d *assay.DossierDiff) error {
	if len(d.Fired) == 0 {
		fmt.Fprintln(w, "change triggers: none fired")
	} else {
		fmt.Fprintln(w, "change triggers fired (the release gate reopens):")
		for _, t := range d.Fired {
			fmt.Fprintf(w, "  %s: %s -> %s\n", t.Name, orDash(t.Old), orDash(t.New))
		}
	}
	if d.Diff == "" {
		fmt.Fprintln(w, "dossiers are identical")
	} else {
		fmt.Fprintf(w, "\ndiff (-old +new):\n%s", d.Diff)
	}
	if len(d.Fired) > 0 {
		return errViolation
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
