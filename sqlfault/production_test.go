package sqlfault_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"modernc.org/sqlite"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/sqlfault"
)

// TestCheckProduction: the defended agent (an insert-if-absent charge,
// autocommit, one retry) holds under properties.Check over
// every kind the adapter enacts: each run inside a testing/synctest
// bubble, on a database file of its own created by the run's Configure,
// the oracle's connection opened and closed per read.
func TestCheckProduction(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	def := &model.Definition{
		Name:     "sqlcharge",
		Fixtures: []model.Fixture{fixture},
		Builtin:  builtin,
		Clock:    properties.BubbleClock,
		Configure: func(json.RawMessage) (model.Factory, error) {
			runs++
			dsn := "file:" + filepath.Join(dir, fmt.Sprintf("run-%d.db", runs)) + "?_pragma=synchronous(off)"
			base, err := sqlite.NewConnector(dsn)
			if err != nil {
				return nil, err
			}
			db := sql.OpenDB(base)
			_, err = db.Exec(schema)
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
			s := &system{dsn: dsn, opt: agentOpts{Idempotent: true, Retry: true}, opts: sqlfault.Options{CheckpointTable: "checkpoints"}}
			return func() model.System { return s }, nil
		},
	}
	opts := []properties.Option{properties.WithKinds(sqlfault.Kinds()...), properties.WithoutWorldEvents(), properties.WithMaxFaults(2)}
	if raceDetector {
		// the same goroutines (database/sql's and the driver's) run in each
		// check; the detector watches the walk's clean run and 13 single
		// faults (of its 122 schedules) and 10 checks of seed 1, go test
		// ./... runs the whole walk and rapid's 100
		opts = append(opts, properties.WithSeed(1), properties.WithChecks(10), properties.WithMaxSchedules(14))
	}
	properties.Check(t, def, opts...)
	if runs < 10 {
		t.Fatalf("%d runs", runs)
	}
}
