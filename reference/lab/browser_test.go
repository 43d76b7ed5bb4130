//go:build browser

// The real-browser test of the lab page. It needs Debian's chromium at
// /usr/bin/chromium (or the path in LAB_CHROMIUM); scripts/lab-browser-test.sh
// installs it when missing and runs this file with -tags browser.

package lab_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/lab"
)

// TestBrowserCounterfactual loads the page in headless chromium, runs the
// typed profile, reads the six meters, unticks idempotency and
// effect_readback, runs again, and requires the tool domain's duplicate
// effect figure to rise from zero to the figure assay.Run gives for that
// control set. After each run the release envelope shown (region, reasons,
// the figure's highlighted region) is the placement of the model (the
// audit's, for the typed profile) and the coverage view shows the
// visited/reachable count GET /api/coverage gives. It then replays an
// uploaded schedule and a malformed one in the timeline viewer, and saves
// screenshots in the test's artifact directory.
func TestBrowserCounterfactual(t *testing.T) {
	exe := os.Getenv("LAB_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("chromium not found at %s (run scripts/lab-browser-test.sh, which installs it): %v", exe, err)
	}
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// the whole test is bounded: the timer ends the browser
	stopTimer := time.AfterFunc(3*time.Minute, cancel)
	defer stopTimer.Stop()

	// every console error, uncaught exception or refused load fails the test
	var mu sync.Mutex
	var problems []string
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	rate := func(sel string) float64 {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), "data-rate"))
		if err != nil || !a.Exists {
			t.Fatalf("data-rate of %s: %v (exists %t)", sel, err, a.Exists)
		}
		v, err := strconv.ParseFloat(a.Value, 64)
		if err != nil {
			t.Fatalf("data-rate of %s: %v", sel, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.ArtifactDir(), name)
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	// shotOf saves a screenshot of the element sel alone.
	shotOf := func(sel, name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.ArtifactDir(), name)
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	expect := func(cs copperfin.Controls, label string) *assay.Report {
		t.Helper()
		rep, err := assay.Run(copperfin.Definition(), assay.Config{Profile: label, System: copperfin.ConfigOfControls(cs).System, Trials: 2000, Seed: 188})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// checkMeters compares the six meters with the model's overall rates:
	// the exact rate behind each, and its percentage as shown.
	checkMeters := func(rep *assay.Report) {
		t.Helper()
		r := rep.Overall.Rates()
		for term, want := range map[string]float64{
			"contained": r.Contained, "recovered": r.Recovered, "verified": r.Verified,
			"useful_service": r.UsefulService, "unsafe_escape": r.UnsafeEscape, "unverifiable_release": r.UnverifiableRelease,
		} {
			sel := `.meter[data-term="` + term + `"] .value`
			if got := rate(sel); got != want {
				t.Errorf("meter %s: rate %v, model %v", term, got, want)
			}
			shown, err := strconv.ParseFloat(strings.TrimSuffix(text(sel), "%"), 64)
			if err != nil || math.Abs(shown-100*want) > 0.05+1e-9 {
				t.Errorf("meter %s shows %q for a rate of %v", term, text(sel), want)
			}
		}
	}
	const toolDupe = `#domains td[data-domain="tool"][data-term="duplicate_effect"]`
	texts := func(sel string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map((e) => e.textContent)`))
		if err != nil {
			t.Fatalf("texts of %s: %v", sel, err)
		}
		return v
	}
	attr := func(sel, name string) string {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
		if err != nil || !a.Exists {
			t.Fatalf("%s of %s: %v (exists %t)", name, sel, err, a.Exists)
		}
		return a.Value
	}
	// checkEnvelope compares the envelope shown with the model's placement.
	checkEnvelope := func(want assay.Placement) {
		t.Helper()
		if got := attr("#envelope", "data-region"); got != string(want.Region) {
			t.Errorf("envelope region %q, the model's %q", got, want.Region)
		}
		if got := text("#envelope-region .region"); got != string(want.Region) {
			t.Errorf("envelope region shown %q, the model's %q", got, want.Region)
		}
		if got := texts("#envelope-figure g.region.current"); len(got) != 1 || !strings.HasPrefix(strings.TrimSpace(got[0]), string(want.Region)) {
			t.Errorf("highlighted regions of the figure %q, want %q alone", got, want.Region)
		}
		if got := texts("#envelope-reasons li"); strings.Join(got, "\n") != strings.Join(want.Reasons, "\n") {
			t.Errorf("envelope reasons on the page:\n%s\nthe model's:\n%s", strings.Join(got, "\n"), strings.Join(want.Reasons, "\n"))
		}
		if got := len(texts("#envelope-checks tbody tr")); got != len(want.Checks) {
			t.Errorf("%d checks on the page, %d in the model", got, len(want.Checks))
		}
	}
	// checkCoverage compares the coverage view with GET /api/coverage.
	checkCoverage := func(runs int) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/api/coverage")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var rep struct {
			Summary   coverage.Summary  `json:"summary"`
			Unvisited []coverage.KeyRow `json:"unvisited"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
			t.Fatal(err)
		}
		s := rep.Summary
		if s.Runs != runs {
			t.Errorf("the API counts %d runs, want %d", s.Runs, runs)
		}
		want := "Coverage: " + strconv.Itoa(s.Visited) + " of " + strconv.Itoa(s.Reachable) + " reachable keys visited"
		if got := text("#coverage-headline"); !strings.HasPrefix(got, want) {
			t.Errorf("coverage headline %q, the API's %q", got, want)
		}
		if v, r := attr("#coverage-headline", "data-visited"), attr("#coverage-headline", "data-reachable"); v != strconv.Itoa(s.Visited) || r != strconv.Itoa(s.Reachable) {
			t.Errorf("coverage view: %s/%s visited/reachable, the API's %d/%d", v, r, s.Visited, s.Reachable)
		}
		if got := texts("#heatmaps figure.heatmap figcaption"); strings.Join(got, ", ") != "domain × phase, boundary × oracle, correlation × domain" {
			t.Errorf("heatmaps %q", got)
		}
		// every reachable key is in exactly one cell of a heatmap
		sum, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('#heatmaps figure[data-rows="domain"] g[data-visited]')].reduce((a, g) => [a[0] + Number(g.dataset.visited), a[1] + Number(g.dataset.reachable)], [0, 0])`))
		if err != nil || len(sum) != 2 || sum[0] != s.Visited || sum[1] != s.Reachable {
			t.Errorf("domain × phase cells add up to %v visited/reachable (%v), the API's %d/%d", sum, err, s.Visited, s.Reachable)
		}
		if got := len(texts("#unvisited li[data-key]")); got != len(rep.Unvisited) || text("#unvisited-count") != strconv.Itoa(len(rep.Unvisited)) {
			t.Errorf("%d unvisited keys listed (count %s), the API's %d", got, text("#unvisited-count"), len(rep.Unvisited))
		}
		t.Logf("coverage after %d runs: %s; %d unvisited", runs, text("#coverage-headline"), len(rep.Unvisited))
	}
	var audit assay.Placement
	ev, err := assay.Gather(copperfin.Definition(), auditStudies())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ev.Base.Placements {
		if p.Profile == "typed" && p.Config == "all" {
			audit = p
		}
	}

	do(chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.ID("run")))
	if got := text("h1"); !strings.HasPrefix(got, "faultline lab") {
		t.Fatalf("page title %q", got)
	}

	// 1. the typed profile
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	do(chromedp.Click(chromedp.CSS(`button.preset[data-profile="typed"]`)),
		chromedp.SetValue(chromedp.ID("fault"), "all"),
		chromedp.SetValue(chromedp.ID("trials"), "2000"),
		chromedp.SetValue(chromedp.ID("seed"), "188"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.CSS(`#status[data-run="1"]`)))
	want := expect(typed, "typed")
	checkMeters(want)
	if got, w := rate(toolDupe), want.ByDomain[model.Domain("tool")].Rates().DuplicateEffect; got != 0 || w != 0 {
		t.Fatalf("typed: tool duplicate effect %v on the page, %v in the model; want 0", got, w)
	}
	if got := text("#assessment-status"); got != want.Assessment {
		t.Errorf("typed: assessment %q, the model's %q", got, want.Assessment)
	}
	if got := text("#command"); got != "faultline assay --profile typed --fault all --trials 2000 --seed 188" {
		t.Errorf("typed: command %q", got)
	}
	if audit.Region != assay.RegionContainedButDead {
		t.Fatalf("the audit places typed in %q", audit.Region)
	}
	checkEnvelope(audit)
	checkCoverage(2000)
	shot("lab-typed.png")
	shotOf("#envelope", "lab-typed-envelope.png")

	// 2. the counterfactual: typed without idempotency and effect readback
	do(chromedp.Click(chromedp.CSS(`input[name=control][value="idempotency"]`)),
		chromedp.Click(chromedp.CSS(`input[name=control][value="effect_readback"]`)),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.CSS(`#status[data-run="2"]`)))
	cs := typed.Without(copperfin.Idempotency).Without(copperfin.EffectReadback)
	want = expect(cs, "custom")
	checkMeters(want)
	var names []string
	for _, c := range cs.List() {
		names = append(names, string(c))
	}
	tally := assay.NewTally("custom", names)
	if _, err := assay.Run(copperfin.Definition(), assay.Config{Profile: "custom", System: copperfin.ConfigOfControls(cs).System, Trials: 2000, Seed: 188, Observe: tally.Observe}); err != nil {
		t.Fatal(err)
	}
	if pl := tally.Place(assay.DefaultEnvelope()); pl.Region != assay.RegionUnsafeEscape {
		t.Errorf("the model places the counterfactual in %q, want an unsafe escape", pl.Region)
	} else {
		checkEnvelope(pl)
	}
	checkCoverage(4000)
	w := want.ByDomain[model.Domain("tool")].Rates().DuplicateEffect
	if got := rate(toolDupe); got != w || w <= 0 {
		t.Errorf("without idempotency and effect_readback: tool duplicate effect %v on the page, %v in the model; want it to rise from zero", got, w)
	}
	t.Logf("tool duplicate effect: typed 0, without idempotency and effect_readback %v (%s)", w, text(toolDupe))
	if got := text("#command"); got != "faultline assay --controls bind_identity,pre_effect_authority,refresh_context,state_precondition,evidence_gate --fault all --trials 2000 --seed 188" {
		t.Errorf("counterfactual: command %q", got)
	}
	if got := text("#assessment-status"); got != want.Assessment || got != assay.AssessBlock {
		t.Errorf("counterfactual: assessment %q, the model's %q", got, want.Assessment)
	}
	if got := text(`#charts figure[data-domain="tool"] h3`); got != "tool (n="+strconv.Itoa(want.ByDomain[model.Domain("tool")].Trials)+")" {
		t.Errorf("tool chart heading %q", got)
	}

	// 3. the timeline viewer: an uploaded schedule, then a malformed one
	sched, err := filepath.Abs("../corpus/timeout-after-commit.json")
	if err != nil {
		t.Fatal(err)
	}
	do(chromedp.SetUploadFiles(chromedp.ID("schedule-file"), []string{sched}),
		chromedp.WaitVisible(chromedp.ID("replay-result")))
	if got := text("#replay-summary"); !strings.Contains(got, "run unrecoverable (an invariant was violated)") {
		t.Errorf("replay summary %q", got)
	}
	if got := text(`#replay-invariants tr[data-invariant="effect_at_most_once"]`); !strings.Contains(got, "VIOLATED") {
		t.Errorf("effect_at_most_once row %q", got)
	}
	if got := text("#replay-coverage"); got != "Session coverage: tool/effect/after_commit/isolated/ledger_readback visited." {
		t.Errorf("replay coverage %q", got)
	}
	checkCoverage(4001)
	shotOf("#coverage", "lab-coverage.png")

	// 4. a fresh session, then a replay whose fault is never reached: the
	// key is listed unvisited, "scheduled, not reached", with its reason
	do(chromedp.Click(chromedp.ID("coverage-reset")),
		chromedp.WaitVisible(chromedp.CSS(`#coverage-headline[data-runs="0"]`)))
	checkCoverage(0)
	if got := text(`#unvisited li[data-key="tool/effect/after_commit/isolated/ledger_readback"]`); got != "tool/effect/after_commit/isolated/ledger_readback (never tried): no recorded run scheduled timeout_after_commit" {
		t.Errorf("unvisited row before the replay %q", got)
	}
	do(chromedp.SetValue(chromedp.ID("schedule"), `{"version":1,"seed":"late","config":{"profile":"baseline"},"faults":[{"event":"tool.commit","ordinal":9,"kind":"timeout_after_commit"}]}`),
		chromedp.Click(chromedp.ID("replay")),
		chromedp.WaitVisible(chromedp.CSS(`#coverage-headline[data-runs="1"]`)))
	checkCoverage(1)
	if got := text("#coverage-headline"); !strings.HasPrefix(got, "Coverage: 0 of 40 reachable keys visited") {
		t.Errorf("after an unreached replay: %q", got)
	}
	if got := text(`#unvisited li[data-status="scheduled_not_reached"]`); got != "tool/effect/after_commit/isolated/ledger_readback (scheduled not reached): scheduled 1 time, but its event never occurred (timeout_after_commit)" {
		t.Errorf("unvisited row after the replay %q", got)
	}
	if got := text("#replay-coverage"); !strings.HasPrefix(got, "Session coverage: tool/effect/after_commit/isolated/ledger_readback not visited (scheduled 1 time, but its event never occurred") {
		t.Errorf("replay coverage %q", got)
	}
	shotOf("#coverage", "lab-coverage-unreached.png")
	shot("lab-counterfactual-and-replay.png")
	// checkConsole fails on every console problem so far except those
	// expected
	checkConsole := func(expected string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			if expected == "" || !strings.Contains(p, expected) {
				t.Errorf("browser console: %s", p)
			}
		}
		problems = nil
	}
	checkConsole("")
	do(chromedp.SetValue(chromedp.ID("schedule"), `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":0,"kind":"timeout_after_commit"}]}`),
		chromedp.Click(chromedp.ID("replay")),
		chromedp.WaitVisible(chromedp.ID("replay-error")))
	if got := text("#replay-error"); got != "schedule: faults[0]: ordinal 0 must be 1 or more" {
		t.Errorf("replay error %q", got)
	}

	// the browser logs the refused schedule's 400 as a failed load
	checkConsole("the server responded with a status of 400 (Bad Request)")
}
