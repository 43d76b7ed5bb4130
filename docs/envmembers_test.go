package docs

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
)

// TestOwnSystemNamesEveryEnvMember: the Env's members table in
// own-system.md names every field of model.Env, so a new member of the
// seam is documented where a user looks for it.
func TestOwnSystemNamesEveryEnvMember(t *testing.T) {
	data, err := os.ReadFile("own-system.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| `") {
			table = append(table, strings.SplitN(line[1:], "|", 2)[0])
		}
	}
	if len(table) == 0 {
		t.Fatal("own-system.md has no Env member table")
	}
	named := map[string]bool{}
	word := regexp.MustCompile("`([A-Za-z]+)[.` ]")
	for _, cell := range table {
		for _, m := range word.FindAllStringSubmatch(cell, -1) {
			named[m[1]] = true
		}
	}
	env := reflect.TypeOf(model.Env{})
	for i := range env.NumField() {
		if f := env.Field(i).Name; !named[f] {
			t.Errorf("own-system.md's Env member table does not name Env.%s", f)
		}
	}
}
