package paper

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/internal/jsonout"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// Interpretation is the paper's interpretation boundary for an assay result.
var Interpretation = map[string]string{
	"positive":         "The configured controls contained the represented synthetic faults under this harness.",
	"negative":         "A negative result identifies a control or recovery gap in the represented path.",
	"cannot_establish": "The harness does not establish production reliability, unseen-fault coverage, or a causal role for any language model component.",
}

// Boundary is the closing line of the text report and of the audit.
const Boundary = "Interpretation boundary: this is evidence about represented faults in a synthetic configured system, not proof of production safety."

func pct(v float64) string { return fmt.Sprintf("%6.1f%%", 100.0*v) }

// controlsOf returns the reference system's controls of rep's config.
func controlsOf(rep *assay.Report) copperfin.Controls {
	cs, _ := copperfin.ControlsOf(model.Config{System: rep.Config.System})
	return cs
}

// WriteText prints the report as the paper's artefact prints it: the
// profile line, the controls, a row per domain with the nine rates and the
// overall row, then the assessment with its reasons.
func WriteText(w io.Writer, r *assay.Report) error {
	var b bytes.Buffer
	c := r.Config
	cs := controlsOf(r)
	fmt.Fprintln(&b, "Typed failure-injection assay (synthetic)")
	fmt.Fprintf(&b, "Profile: %s | trials: %d | seed: %d\n", c.Profile, c.Trials, c.Seed)
	fmt.Fprintln(&b, "Controls:")
	for _, ctl := range controlsShown(cs) {
		state := "off"
		if cs.Has(ctl) {
			state = "ON"
		}
		fmt.Fprintf(&b, "  %-24s %s\n", ctl, state)
	}
	fmt.Fprintln(&b)
	header := fmt.Sprintf("%-10s %6s %8s %8s %8s %8s %8s %8s %8s %9s",
		"domain", "n", "detect", "contain", "recover", "verify", "service", "unsafe", "dupe", "unproved")
	fmt.Fprintln(&b, header)
	fmt.Fprintln(&b, strings.Repeat("-", len(header)))
	row := func(name string, k assay.Counts) {
		x := k.Rates()
		fmt.Fprintf(&b, "%-10s %6d %8s %8s %8s %8s %8s %8s %8s %9s\n", name, x.Trials,
			pct(x.Detected), pct(x.Contained), pct(x.Recovered), pct(x.Verified), pct(x.UsefulService),
			pct(x.UnsafeEscape), pct(x.DuplicateEffect), pct(x.UnverifiableRelease))
	}
	for _, d := range c.Domains {
		row(string(d), r.ByDomain[d])
	}
	fmt.Fprintln(&b, strings.Repeat("-", len(header)))
	row("overall", r.Overall)
	fmt.Fprintf(&b, "\nAssessment: %s\n", r.Assessment)
	for _, reason := range r.Reasons {
		fmt.Fprintf(&b, "  - %s\n", reason)
	}
	fmt.Fprintf(&b, "\n%s\n", Boundary)
	_, err := w.Write(b.Bytes())
	return err
}

// controlsShown lists the paper's seven controls, and deny_on_warning when
// it is enabled.
func controlsShown(cs copperfin.Controls) []copperfin.Control {
	out := append([]copperfin.Control(nil), copperfin.PaperControls...)
	if cs.Has(copperfin.DenyOnWarning) {
		out = append(out, copperfin.DenyOnWarning)
	}
	return out
}

// pyFloat is a rate that encodes in JSON as Python's repr does (1.0, 0.0945,
// 5e-06), so the object matches the artefact's to the last character.
type pyFloat float64

// MarshalJSON implements json.Marshaler.
func (f pyFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("paper: rate %v is not finite", v)
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if e := strings.IndexByte(s, 'e'); e < 0 {
		if exp := math.Floor(math.Log10(math.Abs(v))); v != 0 && exp >= 16 {
			s = strconv.FormatFloat(v, 'e', -1, 64)
		} else if !strings.Contains(s, ".") {
			s += ".0"
		}
	}
	return []byte(s), nil
}

func ratesJSON(k assay.Counts) map[string]any {
	x := k.Rates()
	return map[string]any{
		"trials": x.Trials, "detected": pyFloat(x.Detected), "contained": pyFloat(x.Contained),
		"recovered": pyFloat(x.Recovered), "verified": pyFloat(x.Verified), "useful_service": pyFloat(x.UsefulService),
		"unsafe_escape": pyFloat(x.UnsafeEscape), "duplicate_effect": pyFloat(x.DuplicateEffect),
		"unverifiable_release": pyFloat(x.UnverifiableRelease), "service_loss": pyFloat(x.ServiceLoss),
	}
}

// Object returns the report as the artefact's JSON object: profile,
// controls, seed, fault_domains, by_domain.<domain>.<term>,
// overall.<term>, assessment, reasons and interpretation.
func Object(r *assay.Report) map[string]any {
	c := r.Config
	cs := controlsOf(r)
	controls := map[string]bool{}
	for _, ctl := range controlsShown(cs) {
		controls[string(ctl)] = cs.Has(ctl)
	}
	domains := []string{}
	byDomain := map[string]any{}
	for _, d := range c.Domains {
		domains = append(domains, string(d))
		byDomain[string(d)] = ratesJSON(r.ByDomain[d])
	}
	return map[string]any{
		"profile": c.Profile, "controls": controls, "seed": c.Seed, "fault_domains": domains,
		"by_domain": byDomain, "overall": ratesJSON(r.Overall), "assessment": r.Assessment,
		"reasons": r.Reasons, "interpretation": Interpretation,
	}
}

// WriteJSON prints Object indented by two spaces with sorted keys, as the
// artefact's --json does.
func WriteJSON(w io.Writer, r *assay.Report) error {
	return Encode(w, Object(r))
}

// Encode writes v as indented JSON with a trailing newline and without
// HTML escaping.
func Encode(w io.Writer, v any) error { return jsonout.Write(w, v) }
