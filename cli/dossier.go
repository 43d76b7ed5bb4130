package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// The release evidence dossier and audit gather by default: trials per
// named configuration and the seed of the trial plan.
const (
	evidenceTrials = 200
	evidenceSeed   = 1
)

// evidenceConfig is the release evidence of a system's named
// configurations: trials trials of seed, placed in the default envelope.
func evidenceConfig(trials int, seed int64) assay.EvidenceConfig {
	return assay.EvidenceConfig{Trials: trials, Seed: seed, Envelope: assay.DefaultEnvelope()}
}

// evidenceError maps an error of the assay onto the exit-code table: a
// configuration or definition the assay refuses is bad input.
func evidenceError(err error) error {
	if errors.Is(err, assay.ErrBadConfig) {
		return BadInput("%v", err)
	}
	return err
}

func (p *Program) dossierCmd() *cobra.Command {
	var system, out string
	var trials int
	var seed int64
	var full bool
	c := &cobra.Command{
		Use:   "dossier --out DIR",
		Short: "Write the fault dossier of a system (JSON and Markdown)",
		Long: `Gather the release evidence of a registered system (package assay) under its
named configurations (Definition.Configs, or the one default) and write the
versioned fault dossier into DIR: dossier.json for machines and dossier.md
for a pull request. It holds the configured-system manifest, the fault
specs, the baseline and intervention runs, the signatures, the release
placement of each configuration, the counterfactual pairs (for a system
with Arm and Armed), the coefficients, the diagnoses, the unresolved holds
and the change triggers (docs/evidence.md). dossier.md is renamed into
place before dossier.json, which names its SHA-256, so an interrupted write
leaves a pair that "dossier diff" refuses.

It prints one screen: the files written, each configuration's release
region and decision with its first reasons, the unresolved holds and the
change triggers. --full prints the whole dossier.md after it.

"dossier diff OLD NEW" shows what changed between two dossiers and exits 1
when a change trigger fired.

Exit codes: 0 written; 2 bad input (no --out, --trials out of range, a
configuration the system refuses, production code: a Definition with a
Clock); 4 an I/O or internal error (DIR could not be written).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == "" {
				return BadInput("--out DIR is required")
			}
			if err := CheckCount("trials", trials, 1, 1_000_000); err != nil {
				return err
			}
			def := p.Systems[0]
			if system != "" {
				var err error
				if def, err = p.system(system); err != nil {
					return err
				}
			} else if len(p.Systems) > 1 {
				return BadInput("--system: name the system whose dossier to write (registered: %s)", strings.Join(p.systemNames(), ", "))
			}
			if err := runnable(def); err != nil {
				return err
			}
			if err := CheckOutputDir("--out", out); err != nil {
				return err
			}
			d, err := assay.BuildDossier(def, evidenceConfig(trials, seed))
			if err != nil {
				return evidenceError(err)
			}
			if err := assay.WriteDossier(out, d); err != nil {
				return IOFailure(err)
			}
			if err := WriteDossierSummary(c.OutOrStdout(), p.name(), d, out); err != nil {
				return OutputError(err)
			}
			if !full {
				return nil
			}
			md, err := fileio.ReadFile(filepath.Join(out, "dossier.md"), fileio.DossierLimit)
			if err != nil {
				return IOFailure(err)
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "\n%s", md)
			return OutputError(err)
		},
	}
	if len(p.Systems) > 1 {
		c.Flags().StringVar(&system, "system", "", "the registered system: "+strings.Join(p.systemNames(), ", "))
	}
	c.Flags().StringVar(&out, "out", "", "directory to write dossier.json and dossier.md into (created if missing)")
	c.Flags().IntVar(&trials, "trials", evidenceTrials, "trials per named configuration")
	c.Flags().Int64Var(&seed, "seed", evidenceSeed, "seed of the trial plan")
	c.Flags().BoolVar(&full, "full", false, "also print the whole dossier.md")
	c.AddCommand(dossierDiffCmd())
	return c
}

func dossierDiffCmd() *cobra.Command {
	var full bool
	diff := &cobra.Command{
		Use:   "diff OLD NEW [--full]",
		Short: "Show what changed between two dossiers; exit 1 when a change trigger fired",
		Long: `Compare two dossiers (each a dossier.json or a directory holding one): print
the change triggers whose fingerprints differ (tool semantics, state schema,
policy, retry logic, orchestration, evidence routing) and the first lines of
a diff of the rest (--full: all of it).

Exit codes: 0 no change trigger fired, 1 a change trigger fired (the release
gate reopens), 2 bad input (a missing or malformed dossier, or one whose
Markdown beside it does not have the SHA-256 its JSON names), 4 an I/O error
(reading a dossier, writing the output).`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			d, err := assay.DiffDossiers(args[0], args[1])
			if err != nil {
				return InputError(err)
			}
			return writeDossierDiff(c.OutOrStdout(), d, full)
		},
	}
	diff.Flags().BoolVar(&full, "full", false, "print the whole diff of the rest (by default its first lines)")
	return diff
}

// diffLines is how many lines of the diff of the rest dossier diff prints
// without --full.
const diffLines = 20

// dossierReasons is how many of a placement's reasons a summary shows.
const dossierReasons = 2

// WriteDossierSummary prints to w one screen about the dossier d that the
// program prog ("faultline") wrote to dir: the files, each profile's
// release placement with its first reasons, the unresolved holds and the
// change triggers. An error is w's.
func WriteDossierSummary(w io.Writer, prog string, d *assay.Dossier, dir string) error {
	var lines []string
	add := func(format string, args ...any) {
		l := fmt.Sprintf(format, args...)
		indent := strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " "))+2)
		lines = append(lines, WrapText(l, summaryWidth, indent)...)
	}
	add("wrote %s and %s", filepath.Join(dir, "dossier.json"), filepath.Join(dir, "dossier.md"))
	if ev := d.Evidence; ev != nil && ev.Base != nil {
		r := ev.Base
		add("base study: system %s, %d fault kinds, %d trials per profile, seed %d", r.System, len(d.Faults), r.Trials, r.Seed)
		lines = append(lines, "", "Release placement per profile (all configurations):")
		addPlacements(r, add)
	}
	lines = append(lines, "")
	add("Unresolved holds: %d; change triggers fingerprinted: %d (%s dossier diff OLD NEW compares them).",
		len(d.UnresolvedHolds), len(d.ChangeTriggers), prog)
	add("The rest: %s holds every section (signatures, pairs, coefficients, diagnoses, variation); "+
		"%s dossier --full prints it here.", filepath.Join(dir, "dossier.md"), prog)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// addPlacements adds, through add, each profile's placement over all
// configurations with its first reasons.
func addPlacements(st *assay.Study, add func(string, ...any)) {
	for _, p := range st.Placements {
		if p.Config != "all" {
			continue
		}
		add("  %-12s %-20s %s", p.Profile, p.Region, p.Decision)
		for i, reason := range p.Reasons {
			if i == dossierReasons {
				add("    - and %d more reasons in dossier.md", len(p.Reasons)-dossierReasons)
				break
			}
			add("    - %s", reason)
		}
	}
}

func writeDossierDiff(w io.Writer, d *assay.DossierDiff, full bool) error {
	var b strings.Builder
	if len(d.Fired) == 0 {
		fmt.Fprintln(&b, "change triggers: none fired")
	} else {
		fmt.Fprintln(&b, "change triggers fired (the release gate reopens):")
		for _, t := range d.Fired {
			old, nw := orDash(t.Old), orDash(t.New)
			if !full { // fingerprints by their first 16 hex digits, as git abbreviates
				old, nw = abbrev(old), abbrev(nw)
			}
			fmt.Fprintf(&b, "  %s: %s -> %s\n", t.Name, old, nw)
		}
	}
	if d.Diff == "" {
		fmt.Fprintln(&b, "dossiers are identical")
	} else {
		lines := strings.SplitAfter(d.Diff, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if full || len(lines) <= diffLines {
			fmt.Fprintf(&b, "\ndiff (-old +new):\n%s", d.Diff)
		} else {
			fmt.Fprintf(&b, "\ndiff (-old +new), the first %d of %d lines:\n", diffLines, len(lines))
			for _, l := range lines[:diffLines] {
				if l = strings.TrimSuffix(l, "\n"); len(l) > 120 {
					l = l[:117] + "..."
				}
				fmt.Fprintln(&b, l)
			}
			fmt.Fprintf(&b, "... %d more lines: --full prints the whole diff\n", len(lines)-diffLines)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return OutputError(err)
	}
	if len(d.Fired) > 0 {
		return ErrViolation
	}
	return nil
}

// abbrev shortens a 64-digit fingerprint to its first 16 digits.
func abbrev(s string) string {
	if len(s) == 64 {
		return s[:16]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// auditEvidence is the release evidence of one audited system.
type auditEvidence struct {
	def *model.Definition
	ev  *assay.Evidence
}

// gatherEvidence gathers def's release evidence for its audit (a model-path
// system: audit refuses production code, see runnable).
func gatherEvidence(def *model.Definition) (auditEvidence, error) {
	ev, err := assay.Gather(def, evidenceConfig(evidenceTrials, evidenceSeed))
	if err != nil {
		return auditEvidence{}, evidenceError(err)
	}
	return auditEvidence{def: def, ev: ev}, nil
}
