package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/complete"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

func init() { commands = append(commands, newAuditCmd) }

func newAuditCmd() *cobra.Command {
	var covFile, compat string
	var ofmt *outflag.Flag
	var full, notices bool
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

By default it prints one screen (at most 40 lines of at most 120
characters): each profile's assessment, release region and reasons, the
worst findings (the single-fault runs that violated an invariant, the most
severe first) each with the command that replays it, the coverage line with
the count of faults not reached, and where the rest is. --full prints the
whole report described above.

--compat paper188 restricts all of it to the paper's ten modes (the assay
then equals the paper's artefact, and the evidence rests on the paper's
trial plan). --format text (default) prints for people, json one object,
markdown the same for a pull request (json and markdown are always the whole
report). --coverage FILE (or FAULTLINE_COVERAGE=FILE) merges the
single-fault runs' coverage into FILE. --notices adds, under each profile,
a run of each kind of the provider's notices (late_notice, reordered_notice,
redelivered_notice, lost_notice, in runs whose provider sends notices; see
docs/catalogue.md), whose keys the coverage then counts; the reference
system's profiles have no defence of notices (notice_reconcile is in none),
so these runs break recorded_agrees_with_ledger, and they are not findings.

Exit codes: 0 the audit ran and at least one of its scheduled faults was
reached; 2 bad input; 3 inconclusive: no single-fault run reached its
fault; 4 an I/O or internal error (the output or --coverage could not be
written). The assessments are in the output, not in the exit code.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return badInput("%v", err)
			}
			if full && format != "text" {
				return badInput("--full applies to --format text: %s is always the whole report", format)
			}
			if compat != "" && compat != "paper188" {
				return badInput("--compat: unknown compatibility target %q (valid: paper188)", compat)
			}
			if notices && compat != "" {
				return badInput("--notices: the paper's ten modes (--compat) have no notices")
			}
			if err := cli.CheckCoverageFile(coverageFlag(covFile), coveragePath(covFile)); err != nil {
				return err
			}
			audits, ev, err := gatherAudit(compat != "")
			if err != nil {
				return err
			}
			if notices {
				if audits, err = withNotices(audits); err != nil {
					return err
				}
			}
			out := c.OutOrStdout()
			if err := writeAuditFormat(out, format, full, audits, ev, compat, coveragePath(covFile)); err != nil {
				return err
			}
			return auditExit(audits)
		},
	}
	c.Flags().BoolVar(&full, "full", false, "print the whole report (every table) instead of one screen")
	c.Flags().StringVar(&covFile, "coverage", "", "merge the audit's coverage into this file (default $"+coverageEnv+")")
	ofmt = outflag.Add(c, "the audit", "text", "json", "markdown")
	c.Flags().StringVar(&compat, "compat", "", "compatibility target: paper188 audits only the paper's ten modes")
	c.Flags().BoolVar(&notices, "notices", false, "add a run of each kind of the provider's notices under each profile (their coverage keys)")
	complete.Values(c, "compat", compatNames)
	return c
}

// withNotices returns a copy of audits with each profile's runs of the
// provider's notices (paper.NoticeRows).
func withNotices(audits []paper.ProfileAudit) ([]paper.ProfileAudit, error) {
	out := append([]paper.ProfileAudit(nil), audits...)
	for i := range out {
		rows, err := paper.NoticeRows(out[i].Controls)
		if err != nil {
			return nil, err
		}
		out[i].Notices = rows
	}
	return out, nil
}

// noticeRuns counts the audits' runs with notices.
func noticeRuns(audits []paper.ProfileAudit) int {
	n := 0
	for _, a := range audits {
		n += len(a.Notices)
	}
	return n
}

// gatherAudit runs the audit (the single-fault runs and assays of every
// profile, with compat the paper's ten modes only) and gathers its release
// evidence. The results are only read afterwards; the package's tests
// replace it with one computation per test binary.
var gatherAudit = func(compat bool) ([]paper.ProfileAudit, *assay.Evidence, error) {
	audits, err := paper.Audit(copperfin.Profiles, compat)
	if err != nil {
		return nil, nil, err
	}
	cfg := paper.EvidenceConfig()
	cfg.Compat = compat
	ev, err := assay.Gather(copperfin.Definition(), cfg)
	if err != nil {
		return nil, nil, err
	}
	return audits, ev, nil
}

// writeAuditFormat writes the audit in format (the text summary unless
// full), merges its coverage into covPath when set, and maps a failed
// write to exit code 4.
func writeAuditFormat(out io.Writer, format string, full bool, audits []paper.ProfileAudit, ev *assay.Evidence, compat, covPath string) error {
	var err error
	switch {
	case format == "json":
		err = writeAuditJSON(out, audits, ev, compat)
	case format == "markdown":
		err = writeAuditMarkdown(out, audits, ev, compat)
	case full:
		err = writeAudit(out, audits, ev, compat)
	default:
		err = writeAuditSummary(out, audits, ev, compat)
	}
	if err != nil {
		return outputError(err)
	}
	if format != "text" || !full {
		// the coverage file is still written when asked
		return writeAuditCoverage(io.Discard, audits, covPath)
	}
	covOut := out
	if compat != "" {
		covOut = io.Discard // the paper's ten are audited without the catalogue's coverage
	}
	if err := writeAuditCoverage(covOut, audits, covPath); err != nil {
		return outputError(err)
	}
	_, err = fmt.Fprintf(out, "\n%s\n", paper.Boundary)
	return outputError(err)
}

// auditExit is 3 when no single-fault run of the audit reached its fault.
func auditExit(audits []paper.ProfileAudit) error {
	rows, reached := 0, 0
	for _, a := range audits {
		for _, r := range a.Rows {
			rows++
			if r.Reached {
				reached++
			}
		}
	}
	if rows > 0 && reached == 0 {
		return inconclusive("inconclusive: none of the audit's %d single-fault runs reached its fault: the audit tested no fault", rows)
	}
	return nil
}

// Limits of the one-screen summary.
const (
	summaryLines = 40
	summaryWidth = 120
)

// finding is one single-fault run of the audit that violated an
// invariant.
type finding struct {
	profile copperfin.Profile
	row     paper.KindRow
	rank    int // profile index
}

// severity orders findings: an unsafe escape, then a duplicate effect,
// then an unproved release, then any other violation; more violated
// invariants first.
func (f finding) severity() int {
	t := f.row.Terms
	s := len(f.row.Violated)
	if t.UnverifiableRelease {
		s += 10
	}
	if t.DuplicateEffect {
		s += 20
	}
	if t.UnsafeEscape {
		s += 40
	}
	return s
}

// worstFindings returns the audit's violating rows, most severe first
// (then by profile and catalogue order).
func worstFindings(audits []paper.ProfileAudit) []finding {
	var fs []finding
	for i, a := range audits {
		for _, r := range a.Rows {
			if len(r.Violated) > 0 {
				fs = append(fs, finding{profile: a.Profile, row: r, rank: i})
			}
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := fs[i].severity(), fs[j].severity(); a != b {
			return a > b
		}
		return fs[i].rank < fs[j].rank
	})
	return fs
}

// replayCommand is the command that replays a finding: the kind's
// single-fault schedule of the corpus (the audit's schedule of that kind)
// under the finding's profile, from the repository root.
func replayCommand(f finding) string {
	return fmt.Sprintf("faultline replay reference/corpus/kinds/%s.json --profile %s", f.row.Kind, f.profile)
}

// writeAuditSummary prints the audit on one screen: at most summaryLines
// lines of at most summaryWidth characters.
func writeAuditSummary(w io.Writer, audits []paper.ProfileAudit, ev *assay.Evidence, compat string) error {
	var head, tail []string
	add := func(l *[]string, format string, args ...any) {
		*l = append(*l, wrapText(fmt.Sprintf(format, args...), summaryWidth, "    ")...)
	}
	add(&head, "faultline audit: reference system (Copperfin refund workflow), %s", kindsLabel(audits, compat))
	add(&head, "per profile: one single-fault run per kind, an assay of %d trials (seed %d), the release evidence.",
		paper.AuditTrials, paper.AuditSeed)
	head = append(head, "", "Per profile: the assay's assessment, the release region, unsafe, unproved and useful-service rates:")
	regions := map[string]assay.Placement{}
	if ev != nil && ev.Base != nil {
		for _, p := range ev.Base.Placements {
			if p.Config == "all" {
				regions[p.Profile] = p
			}
		}
	}
	for _, a := range audits {
		o := a.Assay.Overall.Rates()
		region := "-"
		if p, ok := regions[string(a.Profile)]; ok {
			region = string(p.Region)
		}
		add(&head, "  %-12s %-28s %-19s  unsafe %5.1f%%  unproved %5.1f%%  service %5.1f%%",
			a.Profile, a.Assay.Assessment, region, 100*o.UnsafeEscape, 100*o.UnverifiableRelease, 100*o.UsefulService)
	}
	for _, a := range audits {
		for _, r := range a.Assay.Reasons {
			add(&head, "    %s: %s", a.Profile, r)
		}
	}
	// one release verdict: where the assessment passes a profile the
	// envelope does not release, say which gates and why they differ
	for _, a := range audits {
		if p, ok := regions[string(a.Profile)]; ok && a.Assay.Assessment == assay.AssessPass && p.Region != assay.RegionReleaseEnvelope && len(p.Reasons) > 0 {
			add(&head, "  %s release verdict: %s (the release envelope gates a release; the assessment, a pooled screen without per-domain floors, passes): %s",
				a.Profile, p.Decision, p.Reasons[0])
		}
	}
	// the tail: coverage, unreached faults, where the rest is
	rows, unreached := 0, 0
	for _, a := range audits {
		for _, r := range a.Rows {
			rows++
			if !r.Reached {
				unreached++
			}
		}
	}
	tail = append(tail, "")
	if compat == "" {
		cmp, err := auditComparison(audits)
		if err != nil {
			return err
		}
		sum := cmp.Total.Summary
		correlated := 0
		for _, a := range audits {
			correlated += len(a.Correlated)
		}
		withN := ""
		if n := noticeRuns(audits); n > 0 {
			withN = fmt.Sprintf(", %d with notices", n)
		}
		// the coverage report's own terms: visited over the keys the
		// system can reach, and its faults reached and fired or not
		add(&tail, "Coverage: %s, over %d single-fault runs and %d correlated%s.", sum.VisitedText(), rows, correlated, withN)
		add(&tail, "Faults: %d reached and fired, %d scheduled but not reached, %d reached but not fired.", sum.Visits, sum.FaultsNotReached, sum.FaultsNotFired)
	} else {
		add(&tail, "Faults: %d of the %d single-fault runs' faults not reached.", unreached, rows)
		tail = append(tail, "")
	}
	add(&tail, "The rest: faultline audit --full prints every table (outcome rows, signatures, envelope, pairs, "+
		"coefficients, diagnoses, holds, stop conditions, variation, coverage by key); --format json or markdown "+
		"gives the same for machines and pull requests.")
	add(&tail, "%s", paper.Boundary)

	// the middle: as many of the worst findings as fit
	fs := worstFindings(audits)
	per := map[copperfin.Profile]int{}
	for _, f := range fs {
		per[f.profile]++
	}
	var counts []string
	for _, a := range audits {
		counts = append(counts, fmt.Sprintf("%s %d", a.Profile, per[a.Profile]))
	}
	var mid []string
	mid = append(mid, "")
	if len(fs) == 0 {
		add(&mid, "Findings: no single-fault run violated an invariant (%s).", strings.Join(counts, ", "))
	} else {
		add(&mid, "Worst findings (single-fault runs that violated an invariant: %s):", strings.Join(counts, ", "))
		room := summaryLines - len(head) - len(tail) - len(mid) - 1 // one line for "and N more"
		shown := 0
		for _, f := range fs {
			var l []string
			add(&l, "  %s/%s: %s violated", f.profile, f.row.Kind, strings.Join(f.row.Violated, ", "))
			add(&l, "    %s", replayCommand(f))
			if len(l) > room {
				break
			}
			mid, room, shown = append(mid, l...), room-len(l), shown+1
		}
		if shown < len(fs) {
			add(&mid, "  and %d more: faultline audit --full lists every row", len(fs)-shown)
		}
	}
	var b strings.Builder
	for _, l := range append(append(head, mid...), tail...) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mark(b bool) string {
	if b {
		return "x"
	}
	return "."
}

// kindsLabel says which fault kinds an audit covers.
func kindsLabel(audits []paper.ProfileAudit, compat string) string {
	n := 0
	if len(audits) > 0 {
		n = len(audits[0].Rows)
	}
	if compat != "" {
		return fmt.Sprintf("%d fault kinds (the paper's modes, --compat %s)", n, compat)
	}
	return fmt.Sprintf("%d fault kinds (the whole catalogue)", n)
}

func writeAudit(w io.Writer, audits []paper.ProfileAudit, ev *assay.Evidence, compat string) error {
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
			o.Trials, paper.AuditSeed, 100*o.Contained, 100*o.Recovered, 100*o.Verified, 100*o.UsefulService,
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
func writeAuditJSON(w io.Writer, audits []paper.ProfileAudit, ev *assay.Evidence, compat string) error {
	type profileJSON struct {
		Profile  copperfin.Profile `json:"profile"`
		Controls string            `json:"controls"`
		Rows     []paper.KindRow   `json:"rows"`
		Assay    map[string]any    `json:"assay"`
	}
	out := struct {
		Compat   string          `json:"compat,omitempty"`
		Profiles []profileJSON   `json:"profiles"`
		Evidence *assay.Evidence `json:"evidence"`
		Boundary string          `json:"interpretation_boundary"`
	}{Compat: compat, Evidence: ev, Boundary: paper.Boundary}
	for _, a := range audits {
		out.Profiles = append(out.Profiles, profileJSON{Profile: a.Profile, Controls: a.Controls.String(), Rows: a.Rows, Assay: paper.Object(a.Assay)})
	}
	return paper.Encode(w, out)
}

// writeAuditMarkdown prints the audit as Markdown for a pull request.
func writeAuditMarkdown(w io.Writer, audits []paper.ProfileAudit, ev *assay.Evidence, compat string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# faultline audit\n\nReference system (Copperfin refund workflow), %s, %d profiles; one single-fault run per kind judged by the oracle (x = term holds) and an assay of %d trials with seed %d.\n",
		kindsLabel(audits, compat), len(audits), paper.AuditTrials, paper.AuditSeed)
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
	fmt.Fprintf(&b, "\n%s\n", paper.Boundary)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAuditCoverage records the audit's single-fault runs (every kind
// under every profile), one record per profile, prints them side by side
// beside the outcome tables (which keys held under which profile, which
// broke, with the counterexamples), and merges all of them into path when
// set.
func writeAuditCoverage(w io.Writer, audits []paper.ProfileAudit, path string) error {
	all, cmp, err := auditCoverage(audits)
	if err != nil {
		return err
	}
	correlated := 0
	for _, a := range audits {
		correlated += len(a.Correlated)
	}
	outside := 0
	for _, sp := range model.CacheAndWorkerKinds() {
		if !sp.Fleet { // copperfin.Correlated runs no fleet kind
			outside++
		}
	}
	if _, err := fmt.Fprintf(w, "\n== coverage of the runs above (%d single-fault runs: %d fault kinds under %d profiles; and %d correlated runs: %d modifiers and %d kinds outside the catalogue under %d profiles)\n",
		cmp.Total.Summary.Runs-correlated-noticeRuns(audits), len(model.Catalogue()), len(audits), correlated, len(copperfin.Correlated())-outside, outside, len(audits)); err != nil {
		return err
	}
	if n := noticeRuns(audits); n > 0 {
		if _, err := fmt.Fprintf(w, "(and %d runs with notices: %d kinds of the provider's notices under %d profiles)\n", n, len(model.NoticeKinds()), len(audits)); err != nil {
			return err
		}
	}
	if err := cmp.WriteText(w); err != nil {
		return err
	}
	return flushCoverage(all, path)
}

// auditCoverage records the audit's single-fault runs, all of them and
// one column per profile, and compares the columns.
func auditCoverage(audits []paper.ProfileAudit) (*coverage.Tracker, *coverage.Comparison, error) {
	var u *coverage.Universe
	if noticeRuns(audits) > 0 {
		u = coverage.NoticeUniverse()
	}
	all := newTracker(u)
	var cols []coverage.Column
	for _, a := range audits {
		t := newTracker(all.Universe())
		for _, row := range append(append(append([]paper.KindRow(nil), a.Rows...), a.Correlated...), a.Notices...) {
			if err := t.Record(row.Result); err != nil {
				return nil, nil, err
			}
		}
		d := t.Data()
		cols = append(cols, coverage.Column{Label: string(a.Profile), Data: d})
		all.Add(d)
	}
	cmp, err := coverage.Compare(all.Universe(), cols, reportOptions)
	if err != nil {
		return nil, nil, err
	}
	return all, cmp, nil
}

// auditComparison is auditCoverage's comparison.
func auditComparison(audits []paper.ProfileAudit) (*coverage.Comparison, error) {
	_, cmp, err := auditCoverage(audits)
	return cmp, err
}
