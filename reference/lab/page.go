package lab

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"strings"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/paper"
)

//go:embed static/page.html static/lab.css static/lab.js
var static embed.FS

// controlLabels are the lab's labels of the seven controls (the paper,
// "Executable lab") and of the fail-closed policy (worked example 5).
var controlLabels = map[copperfin.Control]string{
	copperfin.BindIdentity:       "Bind actor, subject, tenant and purpose",
	copperfin.PreEffectAuthority: "Re-check authority before effect",
	copperfin.RefreshContext:     "Refresh action-bearing context",
	copperfin.StatePrecondition:  "Require current state version",
	copperfin.Idempotency:        "Reuse logical idempotency key",
	copperfin.EffectReadback:     "Read authoritative postcondition",
	copperfin.EvidenceGate:       "Block unproved success release",
	copperfin.DenyOnWarning:      "Deny every action after any warning (fail closed)",
}

// meter is one of the six meters of the seed's lab: an overall term of the
// assay object, and whether a higher rate is worse.
type meter struct {
	Term, Label string
	Bad         bool
}

var meters = []meter{
	{"contained", "Containment", false},
	{"recovered", "Recovery", false},
	{"verified", "Outcome proof", false},
	{"useful_service", "Useful service", false},
	{"unsafe_escape", "Unsafe escape", true},
	{"unverifiable_release", "Unproved release", true},
}

// column is one rate column of the per-domain table and charts, in the
// order of "faultline assay".
type column struct{ Term, Head string }

var columns = []column{
	{"detected", "detect"}, {"contained", "contain"}, {"recovered", "recover"}, {"verified", "verify"},
	{"useful_service", "service"}, {"unsafe_escape", "unsafe"}, {"duplicate_effect", "dupe"},
	{"unverifiable_release", "unproved"},
}

type controlView struct {
	Name, Label string
	Paper       bool
}

type profileView struct {
	Name     string
	Controls string // comma-separated
}

type domainView struct {
	Name  string
	Kinds []model.FaultSpec
}

// regionView is one region of the release figure (the paper, worked
// example 5) as the page draws it: useful service on the x axis,
// containment and outcome proof on the y axis.
type regionView struct {
	Name, Decision string
	X, Y           int // the region's top-left corner
	TX, TY, DY     int // its name's centre and baseline, its decision's baseline
}

// regions places the four regions as the paper's figure does.
func regions() []regionView {
	at := func(r assay.Region, col, row int) regionView {
		x, y := 40+col*146, 8+row*102
		return regionView{Name: string(r), Decision: r.Decision(), X: x, Y: y, TX: x + 70, TY: y + 44, DY: y + 62}
	}
	return []regionView{
		at(assay.RegionContainedButDead, 0, 0), at(assay.RegionReleaseEnvelope, 1, 0),
		at(assay.RegionUnsafeEscape, 0, 1), at(assay.RegionUsefulButUnproved, 1, 1),
	}
}

type floorView struct{ Term, Min, Scope string }

// legendEntry is one fill of the coverage heatmaps. The fills and texts
// are those of the coverage package's HTML report, so the lab's heatmaps
// read as "faultline coverage report --format html" draws them.
type legendEntry struct{ Name, Fill, Text string }

var coverageLegend = []legendEntry{
	{"held", "#b2f2bb", "every reachable key visited, all held"},
	{"violated", "#ffc9c9", "an invariant was violated under a key"},
	{"partial", "#ffe8a3", "some reachable keys visited"},
	{"none", "#ffffff", "reachable, none visited"},
	{"empty", "#e9ecef", "no catalogue kind reaches this cell"},
}

type pageData struct {
	Script, Style  template.HTML
	Regions        []regionView
	Floors         []floorView
	AuditTrials    int
	AuditSeed      int
	CoverageLegend []legendEntry
	Controls       []controlView
	Profiles       []profileView
	Domains        []domainView
	Meters         []meter
	Columns        []column
	MaxTrials      int
	MaxBodyBytes   int64
	DefaultProfile string
	DefaultTrials  int
	DefaultSeed    int
	Interpretation map[string]string
	Boundary       string
	Example        string
}

// renderPage renders the page once and returns it with its
// Content-Security-Policy: the inline script and style are allowed by
// their hashes, requests go only to this server, nothing else loads.
func renderPage(opts Options) ([]byte, string, error) {
	read := func(name string) (string, error) {
		b, err := static.ReadFile("static/" + name)
		return string(b), err
	}
	html, err := read("page.html")
	if err != nil {
		return nil, "", err
	}
	script, err := read("lab.js")
	if err != nil {
		return nil, "", err
	}
	style, err := read("lab.css")
	if err != nil {
		return nil, "", err
	}
	d := pageData{
		// The embedded files are trusted build inputs, inserted verbatim.
		Script: template.HTML("<script>" + script + "</script>"),
		Style:  template.HTML("<style>" + style + "</style>"),
		Meters: meters, Columns: columns,
		MaxTrials: opts.MaxTrials, MaxBodyBytes: opts.MaxBodyBytes,
		DefaultProfile: string(DefaultProfile), DefaultTrials: DefaultTrials, DefaultSeed: DefaultSeed,
		Interpretation: paper.Interpretation, Boundary: paper.Boundary,
		Regions: regions(), AuditTrials: paper.AuditTrials, AuditSeed: paper.AuditSeed, CoverageLegend: coverageLegend,
	}
	for _, f := range assay.DefaultEnvelope().Floors {
		d.Floors = append(d.Floors, floorView{Term: f.Term, Min: fmt.Sprintf("%.0f%%", 100*f.Min), Scope: strings.ReplaceAll(string(f.Scope), "_", " ")})
	}
	for _, c := range copperfin.AllControls {
		if c == copperfin.NoticeReconcile {
			continue // the lab's runs send no notices
		}
		d.Controls = append(d.Controls, controlView{Name: string(c), Label: controlLabels[c], Paper: c != copperfin.DenyOnWarning})
	}
	for _, p := range copperfin.Profiles {
		cs, err := copperfin.ProfileControls(p)
		if err != nil {
			return nil, "", err
		}
		names := []string{}
		for _, c := range cs.List() {
			names = append(names, string(c))
		}
		d.Profiles = append(d.Profiles, profileView{Name: string(p), Controls: strings.Join(names, ",")})
	}
	for _, dom := range model.Domains {
		dv := domainView{Name: string(dom)}
		for _, k := range catalog.Kinds(dom, false) {
			spec, err := model.Spec(k)
			if err != nil {
				return nil, "", err
			}
			dv.Kinds = append(dv.Kinds, spec)
		}
		d.Domains = append(d.Domains, dv)
	}
	ex, err := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	if err != nil {
		return nil, "", err
	}
	ex.Seed = "lab-example-timeout-after-commit"
	d.Example = string(model.Format(ex))
	t, err := template.New("page").Parse(html)
	if err != nil {
		return nil, "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, "", err
	}
	csp := "default-src 'none'; script-src " + hashSource(script) + "; style-src " + hashSource(style) +
		"; img-src data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
	return b.Bytes(), csp, nil
}

// hashSource is a CSP hash source for an inline element's text.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
