package sqlfault_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
)

// TestClassifyWrites: the default classifier makes every form of a write
// an effect (or a checkpoint write), and refuses what it cannot tell.
func TestClassifyWrites(t *testing.T) {
	c := sqlfault.TableClassifier("cp")
	effect := func(table string) sqlfault.Class { return sqlfault.Class{Op: sqlfault.OpEffect, Table: table} }
	for _, tc := range []struct {
		q    string
		want sqlfault.Class
	}{
		{`WITH n AS (SELECT 1) INSERT INTO charges (a) SELECT * FROM n`, effect("charges")},
		{`with recursive n(x) as (select 1 union all select x+1 from n where x < 3) delete from charges where id in (select x from n)`, effect("charges")},
		{`WITH d AS (DELETE FROM charges WHERE id = 1 RETURNING *) SELECT * FROM d`, effect("charges")},
		{`WITH u AS (UPDATE cp SET x = 1 RETURNING *) SELECT count(*) FROM u`, sqlfault.Class{Op: sqlfault.OpCheckpointWrite, Table: "cp"}},
		{`WITH n AS (SELECT 1) SELECT * FROM cp`, sqlfault.Class{Op: sqlfault.OpCheckpointLoad, Table: "cp"}},
		{`WITH n AS (SELECT replace(a, 'x', 'y') FROM t) SELECT * FROM n`, sqlfault.Class{}},
		{`SELECT count(*) FROM charges; DELETE FROM charges WHERE id = 1`, effect("charges")},
		{`SELECT 'a;b' FROM t; UPDATE refunds SET n = 1;`, effect("refunds")},
		{`SELECT step FROM cp WHERE task = ?; SELECT 1`, sqlfault.Class{Op: sqlfault.OpCheckpointLoad, Table: "cp"}},
		{`INSERT INTO charges (k) VALUES (?) ON CONFLICT (k) DO UPDATE SET n = n + 1`, effect("charges")},
		{`INSERT OR REPLACE INTO charges VALUES (1)`, effect("charges")},
		{`REPLACE INTO charges VALUES (1)`, effect("charges")},
		{`UPSERT INTO charges VALUES (1)`, effect("charges")},
		{`MERGE INTO charges AS c USING src ON c.k = src.k WHEN NOT MATCHED THEN INSERT VALUES (src.k)`, effect("charges")},
		{`MERGE charges USING src ON 1 = 1 WHEN MATCHED THEN DELETE`, effect("charges")},
		{`TRUNCATE TABLE charges`, effect("charges")},
		{"\ufeffINSERT INTO charges VALUES (1)", effect("charges")},
		{"\ufeff-- pay\n/* twice? */ INSERT INTO charges VALUES ('it''s; fine')", effect("charges")},
		{`DELETE FROM ONLY charges`, effect("charges")},
		{`PRAGMA journal_mode = wal`, sqlfault.Class{}},
		{`BEGIN; SELECT 1; COMMIT`, sqlfault.Class{}},
		{`CREATE TABLE charges (x int)`, sqlfault.Class{}},
		{``, sqlfault.Class{}},
		{`-- nothing`, sqlfault.Class{}},
	} {
		if got := c(tc.q); got != tc.want {
			t.Errorf("classify(%q) = %+v, want %+v", tc.q, got, tc.want)
		}
	}
	for _, q := range []string{
		`CALL pay(?)`,
		`DO $$ BEGIN DELETE FROM charges; END $$`,
		`INSERT INTO (SELECT 1) VALUES (1)`,
		`INSERT INTO cp VALUES (1); DELETE FROM charges`,
		`WITH n AS (SELECT 1)`,
	} {
		if got := c(q); got.Op != sqlfault.OpRefuse || got.Table != "" {
			t.Errorf("classify(%q) = %+v, want refused", q, got)
		}
	}
	if sqlfault.OpRefuse.String() != "refuse" {
		t.Errorf("OpRefuse is %q", sqlfault.OpRefuse)
	}
}

// stmtSystem runs one statement through the adapter; the oracle reads
// the payments table on a connection of its own.
type stmtSystem struct {
	dsn, query string
	oracle     *sql.DB
	err        *error
}

func (s stmtSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	base, err := sqlite.NewConnector(s.dsn)
	if err != nil {
		return model.Claim{}, err
	}
	c, err := sqlfault.New(base, env.Calls, sqlfault.Options{})
	if err != nil {
		return model.Claim{}, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	_, *s.err = db.ExecContext(ctx, s.query, task.ID)
	return model.Claim{Verdict: model.ClaimHold, Reason: "no proof"}, nil
}

func (s stmtSystem) ProviderLedger(ctx context.Context) ([]model.LedgerEntry, error) {
	return paySystem{oracle: s.oracle}.ProviderLedger(ctx)
}

// TestClassifiedWritesCross: each form of a write SQLite runs crosses
// tool.commit, where a lost reply fires on it (the row is written, the
// code sees ErrOutcomeUnknown); a statement the classifier cannot tell is
// not run, and the run ends with an error naming it.
func TestClassifiedWritesCross(t *testing.T) {
	for _, q := range []string{
		`WITH n(a) AS (SELECT ?) INSERT INTO payments (action) SELECT a FROM n`,
		`SELECT count(*) FROM payments; INSERT INTO payments (action) VALUES (?)`,
		`INSERT INTO payments (action) VALUES (?) ON CONFLICT (action) DO NOTHING`,
		`INSERT OR REPLACE INTO payments (action) VALUES (?)`,
		`REPLACE INTO payments (action) VALUES (?)`,
		"\ufeff/* pay */ -- once\nINSERT INTO payments (action) VALUES (?)",
		`CALL pay(?)`,
	} {
		r, err := runStmt(t, q, "timeout_after_commit")
		res, got, rows := r.res, r.got, r.rows
		if strings.HasPrefix(q, "CALL") {
			want := "sqlfault: refusing a statement the classifier cannot tell: a statement the classifier does not know (CALL): CALL pay ( ? ) (give Options.Classify a class for it)"
			if err == nil || err.Error() != want || got == nil || got.Error() != want || rows != 0 {
				t.Errorf("%q: run error %v, code's error %v, %d rows; want %s", q, err, got, rows, want)
			}
			continue
		}
		if err != nil || res.Faults[0].Fired != 1 || !errors.Is(got, sqlfault.ErrOutcomeUnknown) || rows != 1 {
			t.Errorf("%q: run error %v, fault %+v, code's error %v, %d rows", q, err, res.Faults[0], got, rows)
		}
	}
}

// stmtRun is what runStmt saw.
type stmtRun struct {
	res  *model.Result
	got  error // the code's error
	rows int   // the rows written
}

// runStmt runs query once through the adapter with kind at the first
// tool.commit, on a fresh payments table.
func runStmt(t *testing.T, query, kind string) (stmtRun, error) {
	t.Helper()
	dsn := "file:" + filepath.Join(t.TempDir(), "pay.db")
	oracle, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	if _, err := oracle.Exec(`CREATE TABLE payments (id INTEGER PRIMARY KEY, action TEXT NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	var got error
	h := model.NewHarness(model.Fixture{Name: "pay", Tasks: []model.Task{{ID: "inv-1", Actor: "a", Subject: "s", Tenant: "t", Purpose: "p", Amount: 1}}},
		model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	res, err := h.Run(func() model.System { return stmtSystem{dsn: dsn, query: query, oracle: oracle, err: &got} }, &model.Schedule{
		Version: model.ScheduleVersion, Seed: "w", Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}}})
	var rows int
	if err := oracle.QueryRow(`SELECT count(*) FROM payments`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return stmtRun{res, got, rows}, err
}

// TestFiredExactly: each kind at an autocommit statement is recorded
// fired exactly when database/sql received the disturbed answer: over a
// statement the database commits every kind fires; over one it refuses
// (a NOT NULL constraint), a lost reply has no commit to lose, stays
// unfired, and the code gets the database's own error.
func TestFiredExactly(t *testing.T) {
	const ok, refused = `INSERT INTO payments (action) VALUES (?)`, `INSERT INTO payments (action) SELECT NULL WHERE ? IS NOT NULL`
	for _, tc := range []struct {
		kind, query string
		fired       int
		err         func(error) bool
		rows        int
	}{
		{"timeout_after_commit", ok, 1, func(err error) bool { return errors.Is(err, sqlfault.ErrOutcomeUnknown) }, 1},
		{"timeout_after_commit", refused, 0, func(err error) bool {
			return err != nil && strings.Contains(err.Error(), "NOT NULL constraint failed") && !errors.Is(err, sqlfault.ErrOutcomeUnknown)
		}, 0},
		{"reject_before_commit", ok, 1, func(err error) bool { return errors.Is(err, sqlfault.ErrRejected) }, 0},
		{"reject_before_commit", refused, 1, func(err error) bool { return errors.Is(err, sqlfault.ErrRejected) }, 0},
		// database/sql gets driver.ErrBadConn and sends the statement again
		// (a second crossing), as it would after a real lost connection
		{"timeout_before_send", ok, 1, func(err error) bool { return err == nil }, 1},
		// the database commits the held statement before database/sql's
		// second send, which the UNIQUE action then refuses
		{"tool_timeout", ok, 1, func(err error) bool { return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") }, 1},
	} {
		r, err := runStmt(t, tc.query, tc.kind)
		res, got, rows := r.res, r.got, r.rows
		if err != nil || !res.Faults[0].Reached || res.Faults[0].Fired != tc.fired || !tc.err(got) || rows != tc.rows {
			t.Errorf("%s over %q: run error %v, fault %+v, code's error %v, %d rows", tc.kind, tc.query, err, res.Faults[0], got, rows)
		}
	}
}
