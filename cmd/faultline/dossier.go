package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/internal/complete"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

func init() { commands = append(commands, newDossierCmd) }

func newDossierCmd() *cobra.Command {
	var profiles []string
	var out, compat string
	var full bool
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
holds and the change triggers. Every file is written to a temporary file
first; then dossier.md is renamed into place and dossier.json last, naming
the Markdown's SHA-256 ("markdown_sha256"), so an interrupted write leaves a
pair that "dossier diff" refuses rather than a mixed one. The evidence
covers the whole fault catalogue; --compat paper188 restricts it to the
paper's ten modes.

It prints one screen (at most 40 lines of at most 120 characters): the
files written, each profile's release region and decision with its first
reasons, the unresolved holds and the change triggers, and where the rest
is. --full prints the whole dossier.md after it.

"faultline dossier diff OLD NEW" (package cli's, as for any system) shows
what changed between two dossiers and exits 1 when a change trigger fired.

Exit codes: 0 written; 2 bad input (no --out, an unknown or repeated
profile, an unknown compatibility target); 4 an I/O or internal error (DIR
could not be created or written, the output could not be written).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == "" {
				return badInput("--out DIR is required")
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			cfg := paper.EvidenceConfig()
			cfg.Compat = compat != ""
			if len(profiles) > 0 {
				cfg.Profiles = nil
				seen := map[string]bool{}
				defended := map[string]bool{}
				for _, c := range copperfin.Definition().Configs {
					defended[c.Name] = c.Defended
				}
				for _, p := range profiles {
					if _, err := copperfin.ProfileControls(copperfin.Profile(p)); err != nil {
						return badInput("--profile: %v", err)
					}
					if seen[p] {
						return badInput("--profile: %q given twice", p)
					}
					seen[p] = true
					cfg.Profiles = append(cfg.Profiles, model.NamedConfig{Name: p, System: copperfin.Settings{Profile: copperfin.Profile(p)}.JSON(),
						Defended: defended[p]})
				}
			}
			if err := cli.CheckOutputDir("--out", out); err != nil {
				return err
			}
			d, err := buildDossier(cfg)
			if errors.Is(err, assay.ErrBadConfig) {
				return badInput("%v", err)
			}
			if err != nil {
				return err
			}
			if err := assay.WriteDossier(out, d); err != nil {
				return ioFailure(err)
			}
			if err := cli.WriteDossierSummary(c.OutOrStdout(), "faultline", d, out); err != nil {
				return outputError(err)
			}
			if !full {
				return nil
			}
			md, err := fileio.ReadFile(filepath.Join(out, "dossier.md"), fileio.DossierLimit)
			if err != nil {
				return ioFailure(err)
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "\n%s", md)
			return outputError(err)
		},
	}
	c.Flags().BoolVar(&full, "full", false, "also print the whole dossier.md")
	c.Flags().StringSliceVar(&profiles, "profile", nil, "profiles to include, comma-separated (default baseline,typed,fail_closed)")
	c.Flags().StringVar(&out, "out", "", "directory to write dossier.json and dossier.md into (created if missing)")
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 covers only the paper's ten modes")
	complete.Values(c, "compat", compatNames)
	complete.Values(c, "profile", func() []string {
		out := []string{}
		for _, p := range copperfin.Profiles {
			out = append(out, string(p))
		}
		return out
	})
	return c // "dossier diff" is package cli's
}

// buildDossier builds the dossier of cfg on the reference system
// (assay.BuildDossier). The dossier is only read afterwards; the package's
// tests replace it with one build per configuration per test binary.
var buildDossier = func(cfg assay.EvidenceConfig) (*assay.Dossier, error) {
	return assay.BuildDossier(copperfin.Definition(), cfg)
}
