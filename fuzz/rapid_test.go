package fuzz

// FuzzRapid lives in a file of its own: rapid.MakeFuzz returns a function
// of the standard library's *testing.T, which the replacement testing
// package of go-118-fuzz-build (the ClusterFuzzLite and OSS-Fuzz build
// helper) cannot call, so .clusterfuzzlite/build.sh does not build it and
// the farm never compiles this file. Under go test -fuzz it runs like the
// other targets and reads the same FAULTLINE_* variables (fuzz_test.go).

import (
	"bytes"
	"flag"
	"testing"

	"pgregory.net/rapid"
)

// FuzzRapid explores what package properties explores, with coverage
// guidance: rapid.MakeFuzz turns the input into rapid's draws (eight bytes
// a draw; an input that runs out is skipped), and Decoder.RapidProperty
// draws one schedule from the exploration's generator (kinds of the
// catalogue and world events at any event they fit, with targets) under
// the selected config and fixture, and fails when the run violates an
// invariant, printing the schedule in canonical form and the faultline
// replay command. FAULTLINE_SCOPE does not apply. Seeds, under the
// default setting only: inputs of zero bytes (the smallest draws: one
// fault at its kind's default placement) and of repeated patterns, one to
// four faults long. Under another setting a seed may already fail there,
// which stops fuzzing before it starts, and which draws fail cannot be
// told without rapid: the fuzzer then starts from the empty input.
func FuzzRapid(f *testing.F) {
	env := fromEnv()
	if env.err != nil {
		f.Fatal(env.err)
		return
	}
	failUnreached(f, env.d)
	prop, err := env.d.RapidProperty(&compositions)
	if err != nil {
		f.Fatal(err)
		return
	}
	for n := 1; n <= 4 && !env.chosen; n++ {
		f.Add(make([]byte, 8*16*n))
		f.Add(bytes.Repeat([]byte{byte(n), 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, 4*n))
	}
	f.Fuzz(rapid.MakeFuzz(prop))
}

// failUnreached fails f, after its inputs ran, when not one of the faults
// they scheduled was reached (the campaign tested nothing: inconclusive,
// exit 3), counting only the runs Check made for f. Under
// -test.fuzz the inputs run in worker processes, so the check applies to
// the plain run of the seeds (go test), as under a libFuzzer build it
// cannot apply at all. It lives beside FuzzRapid, in the file the farm
// never compiles: the farm's replacement testing package has no Cleanup.
// (The composition target's seeds are held to the same rule by
// TestCompositionSeedsReachFaults.)
func failUnreached(f *testing.F, d *Decoder) {
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		return
	}
	start := d.reach.Counts()
	f.Cleanup(func() {
		if err := d.reach.Counts().Since(start).Err(); err != nil {
			f.Errorf("fuzz: %v (this target's seeds never met the events their faults sit at)", err)
		}
	})
}
