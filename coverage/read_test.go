package coverage_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestReadRejectsWhatEncodingJSONAccepts: keys in another case, repeated
// keys and a body that is not an object, each of which encoding/json lets
// through or reports in Go terms, are errors that name the problem.
func TestReadRejectsWhatEncodingJSONAccepts(t *testing.T) {
	good := notReachedFile
	visited := string(mustWrite(t, record(t, single(t, "timeout_after_commit", copperfin.ProfileBaseline)).Data()))
	for _, c := range []struct{ name, in, want string }{
		{"Version", strings.Replace(good, `"version"`, `"Version"`, 1), `coverage file: field "Version" does not match "version": keys are case-sensitive`},
		{"Runs", strings.Replace(good, `"runs"`, `"Runs"`, 1), `coverage file: field "Runs" does not match "runs"`},
		{"Visits", strings.Replace(good, `"visits"`, `"Visits"`, 1), `coverage file: keys["tool/effect/after_commit/isolated/ledger_readback"]: field "Visits" does not match "visits"`},
		{"repeated runs", strings.Replace(good, `"runs": 1,`, `"runs": 1, "runs": 2,`, 1), `coverage file: malformed JSON: key "runs" appears twice`},
		{"repeated key", strings.Replace(good, `"keys": {`, `"keys": {"tool/effect/after_commit/isolated/ledger_readback": {}, `, 1), `coverage file: malformed JSON: keys: key "tool/effect/after_commit/isolated/ledger_readback" appears twice`},
		{"repeated count", strings.Replace(visited, `"count": 1`, `"count": 1, "count": 2`, 1), `key "count" appears twice`},
		{"Count", strings.Replace(visited, `"count": 1`, `"Count": 1`, 1), `counterexamples[0]: field "Count" does not match "count"`},
		{"null", `null`, "coverage file: malformed JSON: the top level must be a JSON object, not null"},
		{"array", `[` + good + `]`, "coverage file: malformed JSON: the top level must be a JSON object, not an array"},
		{"byte-order mark", "\xEF\xBB\xBF" + good, "coverage file: malformed JSON: the file starts with a UTF-8 byte-order mark; save it without one"},
		{"empty", "", "coverage file: malformed JSON: empty input: the file is empty"},
	} {
		in := c.in
		if in == good {
			t.Fatalf("%s changes nothing", c.name)
		}
		_, err := coverage.Read(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestReadFileRefusesADevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := coverage.ReadFile("/dev/zero")
	if !errors.Is(err, fileio.ErrBadInput) || err.Error() != "/dev/zero: is a device, not a regular file" {
		t.Errorf("error %v", err)
	}
	_, err = coverage.ReadFile(filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, os.ErrNotExist) || errors.Is(err, fileio.ErrBadInput) {
		t.Errorf("missing file: %v", err)
	}
}
