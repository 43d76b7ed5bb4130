package sqlfault_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
)

// notes is production code: it records a payment with a plain INSERT.
func notes(ctx context.Context, db *sql.DB, action string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO payments (action) VALUES (?)`, action)
	return err
}

// paySystem wires the adapter around the code's *sql.DB and reads the
// payments table on a plain connection of its own.
type paySystem struct {
	dsn    string
	oracle *sql.DB
}

func (s paySystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
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
	if err := notes(ctx, db, task.ID+":pay"); err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (s paySystem) ProviderLedger(ctx context.Context) ([]model.LedgerEntry, error) {
	rows, err := s.oracle.QueryContext(ctx, `SELECT id, action FROM payments ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.LedgerEntry
	for rows.Next() {
		var id int64
		var action string
		if err := rows.Scan(&id, &action); err != nil {
			return nil, err
		}
		out = append(out, model.LedgerEntry{Tool: "payments", Key: action, ActionRef: action, ReceiptID: fmt.Sprint(id)})
	}
	return out, rows.Err()
}

// The driver answers driver.ErrBadConn while the database still holds
// the INSERT (tool_timeout); database/sql re-sends it on a fresh
// connection, the code sees no error, and the payments table holds two
// rows: effect_at_most_once breaks at the second tool.commit.
func Example() {
	dir, err := os.MkdirTemp("", "sqlfault")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	dsn := "file:" + filepath.Join(dir, "pay.db")
	oracle, err := sql.Open("sqlite", dsn)
	if err != nil {
		panic(err)
	}
	defer oracle.Close()
	if _, err := oracle.Exec(`CREATE TABLE payments (id INTEGER PRIMARY KEY, action TEXT NOT NULL)`); err != nil {
		panic(err)
	}
	fix := model.Fixture{Name: "pay", Tasks: []model.Task{{ID: "inv-7", Actor: "agent", Subject: "acct-1", Tenant: "t", Purpose: "invoice", Amount: 100}}}
	h := model.NewHarness(fix, model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	res, err := h.Run(func() model.System { return paySystem{dsn: dsn, oracle: oracle} }, &model.Schedule{
		Version: model.ScheduleVersion, Seed: "pay",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}}})
	if err != nil {
		panic(err)
	}
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	fmt.Println(inv.Held, inv.Event, inv.FaultID, inv.Detail)
	for _, e := range res.Timeline.Events() {
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.Event, " ", e.Outcome, " ", e.FaultID)))
	}
	// Output:
	// false tool.commit f1 second ledger effect for task inv-7
	// worker.start
	// tool.commit unknown f1
	// tool.commit committed
	// claim release
}
