package assay_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

type progressCall struct{ done, total, unsafe int }

func unsafe(t model.Terms) bool { return t.UnsafeEscape || t.DuplicateEffect || t.UnverifiableRelease }

// TestProgressEveryTrial: one worker and ten trials report after each
// trial, done 1..10 of 10, with the unsafe trials counted so far (as the
// trials' own outcomes, observed in order, count them).
func TestProgressEveryTrial(t *testing.T) {
	cs, _ := copperfin.ProfileControls(copperfin.ProfileBaseline)
	var calls, want []progressCall
	bad := 0
	cfg := assay.Config{Profile: "baseline", System: sysOf(cs), Trials: 10, Seed: 188, Compat: true, Workers: 1,
		Observe: func(res *model.Result) error {
			if unsafe(res.Terms) {
				bad++
			}
			want = append(want, progressCall{len(want) + 1, 10, bad})
			return nil
		},
		Progress: func(done, total, unsafe int) { calls = append(calls, progressCall{done, total, unsafe}) }}
	if _, err := assay.Run(refDef(), cfg); err != nil {
		t.Fatal(err)
	}
	if bad == 0 {
		t.Fatal("the baseline's ten trials hold no unsafe one: the test shows nothing")
	}
	if !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %v, want %v", calls, want)
	}
}

// TestProgressInSteps: two workers over 1000 trials report every 10
// trials each (a hundredth), 100 calls in all, done growing by 10 to
// 1000 and the unsafe count ending at the run's; the report is the one
// of the same assay without Progress.
func TestProgressInSteps(t *testing.T) {
	cs, _ := copperfin.ProfileControls(copperfin.ProfileBaseline)
	cfg := assay.Config{Profile: "baseline", System: sysOf(cs), Trials: 1000, Seed: 188, Compat: true, Workers: 2}
	plain, err := assay.Run(refDef(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	bad := 0
	var calls []progressCall
	cfg.Observe = func(res *model.Result) error {
		if unsafe(res.Terms) {
			mu.Lock()
			bad++
			mu.Unlock()
		}
		return nil
	}
	cfg.Progress = func(done, total, unsafe int) { calls = append(calls, progressCall{done, total, unsafe}) }
	rep, err := assay.Run(refDef(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if assay.ProgressStep(1000) != 10 || len(calls) != 100 {
		t.Fatalf("step %d, %d calls; want 10 and 100", assay.ProgressStep(1000), len(calls))
	}
	for i, c := range calls {
		if c.done != 10*(i+1) || c.total != 1000 || (i > 0 && c.unsafe < calls[i-1].unsafe) {
			t.Fatalf("call %d: %+v (previous %v)", i, c, calls[max(i-1, 0)])
		}
	}
	if last := calls[len(calls)-1]; last.unsafe != bad || bad == 0 {
		t.Fatalf("last call counts %d unsafe trials, the run %d", last.unsafe, bad)
	}
	if !reflect.DeepEqual(rep.Overall, plain.Overall) || !reflect.DeepEqual(rep.ByKind, plain.ByKind) {
		t.Fatalf("the report changed with Progress: %+v vs %+v", rep.Overall, plain.Overall)
	}
}

func TestProgressStep(t *testing.T) {
	for trials, want := range map[int]int{1: 1, 99: 1, 100: 1, 250: 2, 2000: 20, 1_000_000: 10000, 100_000_000: 10000} {
		if got := assay.ProgressStep(trials); got != want {
			t.Errorf("ProgressStep(%d) = %d, want %d", trials, got, want)
		}
	}
}
