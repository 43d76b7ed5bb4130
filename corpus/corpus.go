// Package corpus reads and writes a corpus: a directory of readable
// schedule files, which seed fuzz targets and show worked examples, and of
// minimised counterexamples in counterexamples/, each with the run it is
// expected to produce.
//
// Layout of a corpus directory:
//
//   - *.json: worked examples and regression schedules, as schedule files
//     (model.ParseSchedule);
//   - kinds/*.json: one single-fault schedule per fault kind of the
//     catalogue and per world event;
//   - counterexamples/*.json: counterexample files ([Counterexample]);
//   - testdata/: what its tests assert (the recorded verdicts of every
//     schedule file), which [Load] does not read.
//
// Entry points:
//
//   - [Load] reads the whole directory into a [Corpus].
//   - [ParseCounterexample], [Format] and [Counterexample.Check]: the
//     one counterexample file format, version 2 (docs/formats.md; version
//     1 still decodes), and the check of a
//     replay against its recorded expectation; [NewViolation] makes one.
//   - [IsCounterexample] and [ReadCounterexample] tell a counterexample
//     (a file, or an exploration's record of before) from a schedule file
//     and read it.
//
// The regression test of this package replays every file of this
// repository's corpus on every `go test`.
package corpus

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// counterexampleDir is the sub-directory that holds counterexample files.
const counterexampleDir = "counterexamples"

// Seed is one schedule file of the corpus.
type Seed struct {
	// Path is the file's path relative to the corpus directory, with
	// forward slashes ("kinds/stale_policy.json").
	Path     string
	Schedule *model.Schedule
	// Raw is the file's bytes as stored.
	Raw []byte
}

// Entry is one counterexample file of the corpus.
type Entry struct {
	// Path is relative to the corpus directory
	// ("counterexamples/baseline-subject_swap-1a2b3c4d.json").
	Path           string
	Counterexample *Counterexample
	Raw            []byte
}

// Corpus is everything Load read, each list sorted by path.
type Corpus struct {
	Seeds           []Seed
	Counterexamples []Entry
}

// Schedules returns the schedules of every seed and every counterexample
// that has one, in path order (seeds first).
func (c *Corpus) Schedules() []*model.Schedule {
	var out []*model.Schedule
	for _, s := range c.Seeds {
		out = append(out, s.Schedule)
	}
	for _, e := range c.Counterexamples {
		if e.Counterexample.Schedule != nil {
			out = append(out, e.Counterexample.Schedule)
		}
	}
	return out
}

// Load reads every *.json file under dir: those under counterexamples/ as
// counterexample files, the others as schedule files. Directories named
// testdata and files not ending in .json are skipped. It returns an error
// naming the first file that cannot be read or decoded, or a dir that
// holds no schedule file at all.
func Load(dir string) (*Corpus, error) {
	c := &Corpus{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, err := fileio.ReadFile(path, fileio.ScheduleLimit)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, counterexampleDir+"/") {
			ce, err := ParseCounterexample(data)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			c.Counterexamples = append(c.Counterexamples, Entry{Path: rel, Counterexample: ce, Raw: data})
			return nil
		}
		s, err := model.ParseSchedule(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c.Seeds = append(c.Seeds, Seed{Path: rel, Schedule: s, Raw: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if len(c.Seeds) == 0 {
		return nil, fmt.Errorf("corpus: %s holds no schedule file", dir)
	}
	sort.Slice(c.Seeds, func(i, j int) bool { return c.Seeds[i].Path < c.Seeds[j].Path })
	sort.Slice(c.Counterexamples, func(i, j int) bool { return c.Counterexamples[i].Path < c.Counterexamples[j].Path })
	return c, nil
}
