// Package schedulev1 writes a schedule in the canonical text of schedule
// format version 1, the flat config of the reference system, so that
// tests can check that the version-1 files kept in the corpus and in
// testdata are still in their canonical form. The library writes only the
// current version (model.Format); this package is for those checks.
package schedulev1

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

type config struct {
	Profile     *string       `json:"profile,omitempty"`
	Controls    *[]string     `json:"controls,omitempty"`
	Mutant      string        `json:"mutant,omitempty"`
	RetryBudget *int          `json:"retry_budget,omitempty"`
	DeadlineMs  *model.Millis `json:"deadline_ms,omitempty"`
	Join        string        `json:"join,omitempty"`
	Fixture     string        `json:"fixture,omitempty"`
}

type schedule struct {
	Version int                `json:"version"`
	Seed    string             `json:"seed"`
	Config  config             `json:"config"`
	Faults  []model.FaultEntry `json:"faults"`
}

// Format returns s in the canonical text of version 1 (indented JSON with
// a trailing newline, controls in copperfin.AllControls order), or an
// error when s's system part is not the reference system's.
func Format(s *model.Schedule) ([]byte, error) {
	st, err := copperfin.SettingsOf(s.Config)
	if err != nil {
		return nil, err
	}
	c := config{Mutant: st.Mutant, RetryBudget: s.Config.RetryBudget, DeadlineMs: s.Config.Deadline,
		Join: string(s.Config.Join), Fixture: s.Config.Fixture}
	if st.HasControls {
		l := []string{}
		for _, x := range st.Controls.List() {
			l = append(l, string(x))
		}
		c.Controls = &l
	} else {
		p := string(st.Profile)
		c.Profile = &p
	}
	faults := s.Faults
	if faults == nil {
		faults = []model.FaultEntry{}
	}
	b, err := json.MarshalIndent(schedule{Version: 1, Seed: s.Seed, Config: c, Faults: faults}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("schedulev1: %w", err)
	}
	return append(b, '\n'), nil
}

// IsVersion1 reports whether data is a JSON object whose "version" is 1.
func IsVersion1(data []byte) bool {
	var top struct {
		Version json.RawMessage `json:"version"`
	}
	return json.Unmarshal(data, &top) == nil && bytes.Equal(bytes.TrimSpace(top.Version), []byte("1"))
}

// Canonical reports whether data, the file s was decoded from, is in the
// canonical form of its own version: model.Format for the current
// version, Format for version 1. It returns the canonical text it
// compared with.
func Canonical(data []byte, s *model.Schedule) (bool, []byte, error) {
	if !IsVersion1(data) {
		want := model.Format(s)
		return bytes.Equal(data, want), want, nil
	}
	want, err := Format(s)
	if err != nil {
		return false, nil, err
	}
	return bytes.Equal(data, want), want, nil
}

// Reindent re-indents the canonical text of a schedule as it appears
// nested in a file whose top level is indented by two spaces a level (a
// counterexample file), at depth one.
func Reindent(canon []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(canon), "  ", "  "); err != nil {
		return canon
	}
	return b.Bytes()
}
