package corpus_test

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/corpus"
)

// TestEveryCounterexampleFileReplays walks the whole module for JSON files
// that are counterexamples (corpus.IsCounterexample: every version of the
// counterexample format and the exploration's record of before), decodes
// each through the one decoder (corpus.ReadCounterexample), and replays
// each violation to its recorded verdicts. A file the exploration writes
// today is among them. It also shows that a version-1 file and the record
// of before decode to what version 2 holds.
func TestEveryCounterexampleFileReplays(t *testing.T) {
	written, _, _ := record(t)
	files := map[string][]byte{"(written by properties.WriteCounterexample)": written}
	err := filepath.WalkDir("..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != ".." && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if corpus.IsCounterexample(data) {
			files[filepath.ToSlash(path)] = data
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := reference(t)
	version := regexp.MustCompile(`(?m)^  "(counterexample|version)": (\d+),$`)
	seen := map[string]int{}
	for path, data := range files {
		ce, err := corpus.ReadCounterexample(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if m := version.FindSubmatch(data); m != nil {
			seen[string(m[1])+" "+string(m[2])]++
		}
		if ce.Version != corpus.CounterexampleVersion {
			t.Errorf("%s decodes to version %d, want %d", path, ce.Version, corpus.CounterexampleVersion)
		}
		// the reference system, under the name it had before too
		if s := ce.FoundBy.System; s != referenceName && s != "reference" {
			t.Errorf("%s: system %q: no Definition of it to replay here", path, s)
			continue
		}
		if ce.Kind != corpus.KindViolation {
			continue
		}
		res, err := runOn(d, ce.Schedule)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := ce.Check(res); err != nil {
			t.Errorf("%s: replay differs from the recorded run: %v", path, err)
		}
	}
	t.Logf("%d counterexample files: %v", len(files), slices.Sorted(maps.Keys(files)))
	for _, v := range []string{"counterexample 1", "counterexample 2", "version 1"} {
		if seen[v] == 0 {
			t.Errorf("no file of %s among the %d counterexample files (found %v)", v, len(files), seen)
		}
	}

	// a version-1 file decodes to what its version-2 form holds, and
	// only version 2 is written
	v1 := files["../reference/copperfin/testdata/counterexample-v1.json"]
	v2 := files["../reference/corpus/counterexamples/controls-concurrent_version_change-43abbe30.json"]
	a, err := corpus.ReadCounterexample(v1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := corpus.ReadCounterexample(v2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("version 1 and version 2 of one file differ (-v1 +v2):\n%s", diff)
	}
	if !bytes.Equal(canonicalCounterexample(t, a, v2), v2) {
		t.Errorf("a version-1 file is not written as its version-2 form:\n%s", corpus.Format(a))
	}
}
