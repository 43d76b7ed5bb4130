package sqlfault_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/sqlfault"
)

// --- production code: an agent that takes a *sql.DB and imports nothing
// of faultline ---

// agentOpts are the agent's behaviours, defences and planted bugs.
type agentOpts struct {
	// Idempotent writes the charge as an insert-if-absent keyed by the
	// action (the defence against a repeated write); else a plain INSERT.
	Idempotent bool
	// Tx charges in a transaction; else one autocommit statement.
	Tx bool
	// Retry takes an errored charge as not done and charges once more.
	Retry bool
	// IgnoreErr takes an errored charge as done (the bug a refusal finds).
	IgnoreErr bool
	// TxLoad loads the checkpoint in a transaction, through a prepared
	// statement.
	TxLoad bool
}

// chargeAgent charges a task once, keeping its progress in a checkpoint
// table: 0 nothing done, 1 planned, 2 charged, 3 noted.
type chargeAgent struct {
	db    *sql.DB
	opt   agentOpts
	onErr func(error) // sees each charge's error
}

// run returns whether the agent releases the task, or the error it holds
// on.
func (a chargeAgent) run(ctx context.Context, task, subject string, amount int64) (string, bool, error) {
	for range 8 {
		step, err := a.load(ctx, task)
		if err != nil {
			return "", false, err
		}
		switch step {
		case 1:
			if err := a.charge(ctx, task, subject, amount); err != nil {
				switch {
				case a.opt.IgnoreErr:
				case a.opt.Retry:
					if err := a.charge(ctx, task, subject, amount); err != nil {
						return "", false, err
					}
				default:
					return "", false, err
				}
			}
		case 3:
			// the receipt of the release: the charge's row, read back
			var id int64
			err := a.db.QueryRowContext(ctx, `SELECT id FROM charges WHERE action = ? ORDER BY id LIMIT 1`, task+":charge").Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return "", true, nil
			}
			return fmt.Sprint("ch_", id), err == nil, err
		}
		if _, err := a.db.ExecContext(ctx, `INSERT INTO checkpoints (task, step) VALUES (?, ?)
			ON CONFLICT (task) DO UPDATE SET step = excluded.step`, task, step+1); err != nil {
			return "", false, err
		}
	}
	return "", false, errors.New("no progress")
}

func (a chargeAgent) load(ctx context.Context, task string) (int, error) {
	const q = `SELECT step FROM checkpoints WHERE task = ?`
	var step int
	var err error
	if a.opt.TxLoad {
		var tx *sql.Tx
		if tx, err = a.db.BeginTx(ctx, nil); err != nil {
			return 0, err
		}
		defer tx.Rollback()
		var st *sql.Stmt
		if st, err = tx.PrepareContext(ctx, q); err != nil {
			return 0, err
		}
		defer st.Close()
		err = st.QueryRowContext(ctx, task).Scan(&step)
		if err == nil {
			err = tx.Commit()
		}
	} else {
		err = a.db.QueryRowContext(ctx, q, task).Scan(&step)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return step, err
}

func (a chargeAgent) charge(ctx context.Context, task, subject string, amount int64) (err error) {
	if a.onErr != nil {
		defer func() { a.onErr(err) }()
	}
	action := task + ":charge"
	q, args := `INSERT INTO charges (action, subject, amount) VALUES (?, ?, ?)`, []any{action, subject, amount}
	if a.opt.Idempotent {
		q = `INSERT INTO charges (action, subject, amount) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM charges WHERE action = ?)`
		args = append(args, action)
	}
	if !a.opt.Tx {
		_, err := a.db.ExecContext(ctx, q, args...)
		return err
	}
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// --- the test System ---

const schema = `CREATE TABLE charges (id INTEGER PRIMARY KEY, action TEXT NOT NULL, subject TEXT NOT NULL, amount INTEGER NOT NULL);
CREATE TABLE checkpoints (task TEXT PRIMARY KEY, step INTEGER NOT NULL);`

// system wires the adapter around the agent's *sql.DB and reads the
// charges table, the provider's own store, on a plain connection.
type system struct {
	dsn    string
	oracle *sql.DB
	opt    agentOpts
	opts   sqlfault.Options
	errs   []error // the errors the agent's charges saw
}

func (s *system) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	base, err := sqlite.NewConnector(s.dsn)
	if err != nil {
		return model.Claim{}, err
	}
	c, err := sqlfault.New(base, env.Calls, s.opts)
	if err != nil {
		return model.Claim{}, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	receipt, ok, err := chargeAgent{db: db, opt: s.opt, onErr: func(err error) { s.errs = append(s.errs, err) }}.run(ctx, task.ID, task.Subject, task.Amount)
	switch {
	case errors.Is(err, model.ErrWorkerCrashed):
		return model.Claim{}, err
	case err != nil:
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	case ok:
		return model.Claim{Verdict: model.ClaimRelease, Receipt: receipt}, nil
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s *system) ProviderLedger(ctx context.Context) ([]model.LedgerEntry, error) {
	oracle := s.oracle
	if oracle == nil {
		// a connection per read, closed before it returns: inside a
		// testing/synctest bubble no goroutine may outlive the run
		base, err := sqlite.NewConnector(s.dsn)
		if err != nil {
			return nil, err
		}
		oracle = sql.OpenDB(base)
		defer oracle.Close()
	}
	rows, err := oracle.QueryContext(ctx, `SELECT id, action, subject, amount FROM charges ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []model.LedgerEntry
	for rows.Next() {
		var (
			id              int64
			action, subject string
			amount          int64
		)
		if err := rows.Scan(&id, &action, &subject, &amount); err != nil {
			return nil, err
		}
		out = append(out, model.LedgerEntry{Tool: "charges", Key: action, ActionRef: action, Subject: subject, Amount: amount, ReceiptID: fmt.Sprint("ch_", id)})
	}
	return out, rows.Err()
}

// newSystem makes a fresh database file with the schema.
func newSystem(t testing.TB, opt agentOpts) *system {
	return newSystemDSN(t, opt, "")
}

// newSystemDSN is newSystem with query parameters for the database file
// ("_pragma=synchronous(off)", ...).
func newSystemDSN(t testing.TB, opt agentOpts, params string) *system {
	t.Helper()
	path := "file:" + filepath.Join(t.TempDir(), "agent.db")
	if params != "" {
		path += "?" + params
	}
	return newSystemAt(t, opt, path)
}

// newSystemAt makes the schema in the database at dsn.
func newSystemAt(t testing.TB, opt agentOpts, path string) *system {
	t.Helper()
	oracle, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oracle.Close() })
	if _, err := oracle.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return &system{dsn: path, oracle: oracle, opt: opt, opts: sqlfault.Options{CheckpointTable: "checkpoints"}}
}

func (s *system) charges(t testing.TB) int {
	t.Helper()
	var n int
	if err := s.oracle.QueryRow(`SELECT count(*) FROM charges`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var fixture = model.Fixture{Name: "sql", Tasks: []model.Task{{ID: "inv-1", Actor: "agent", Subject: "acct-9", Tenant: "t", Purpose: "invoice", Amount: 300}}}

var builtin = []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress}

func run(t testing.TB, s *system, faults ...model.FaultEntry) *model.Result {
	t.Helper()
	res, err := runErr(s, faults...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func runErr(s *system, faults ...model.FaultEntry) (*model.Result, error) {
	h := model.NewHarness(fixture, model.Options{Builtin: builtin})
	return h.Run(func() model.System { return s }, &model.Schedule{Version: model.ScheduleVersion, Seed: "sql", Faults: faults})
}

func timeline(res *model.Result) string {
	var evs []string
	for _, e := range res.Timeline.Events() {
		s := string(e.Event) + "/" + e.Outcome
		if e.FaultID != "" {
			s += "!" + e.FaultID
		}
		evs = append(evs, s)
	}
	return strings.Join(evs, " ")
}

func at(ev model.EventName, ord int, kind string) model.FaultEntry {
	return model.FaultEntry{Event: ev, Ordinal: ord, Kind: kind}
}

// TestCleanRun: without faults every agent charges once and releases; the
// timeline holds the adapter's crossings.
func TestCleanRun(t *testing.T) {
	for _, opt := range []agentOpts{{}, {Tx: true}, {Idempotent: true, Tx: true, Retry: true}} {
		s := newSystem(t, opt)
		res := run(t, s)
		if !res.Held() || s.charges(t) != 1 || res.RunVerdict != model.Recovered {
			t.Fatalf("%+v: held %v, %d charges, verdict %s", opt, res.Held(), s.charges(t), res.RunVerdict)
		}
		want := "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/committed checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release"
		if got := timeline(res); got != want {
			t.Fatalf("%+v: timeline\n%s\nwant\n%s", opt, got, want)
		}
		// the default Options.Call names the tool after the table
		if e := res.Timeline.Events()[4]; e.Tool != "charges" || e.Ordinal != 1 {
			t.Fatalf("%+v: commit crossing %+v", opt, e)
		}
	}
}

// pair is a counterfactual pair: one fault, an undefended and a defended
// agent.
type pair struct {
	kind       string
	fault      model.FaultEntry
	bad, good  agentOpts
	inv        string
	event      model.EventName
	detail     string
	badRows    int
	goodRows   int
	badLine    string
	goodLine   string
	goodVerdit model.RunVerdict
}

var pairs = []pair{
	{
		// the COMMIT commits and its reply is lost; the agent that takes
		// the error as "failed" charges again
		kind: "timeout_after_commit", fault: at(model.EvToolCommit, 1, "timeout_after_commit"),
		bad: agentOpts{Tx: true, Retry: true}, good: agentOpts{Tx: true, Retry: true, Idempotent: true},
		inv: model.InvEffectAtMostOnce, event: model.EvToolCommit, detail: "second ledger effect for task inv-1", badRows: 2, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 tool.commit/committed checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
	{
		// the driver answers ErrBadConn while the database holds the
		// statement; database/sql re-sends it on a fresh connection: the
		// agent sees no error, the write is repeated
		kind: "tool_timeout", fault: at(model.EvToolCommit, 1, "tool_timeout"),
		bad: agentOpts{}, good: agentOpts{Idempotent: true},
		inv: model.InvEffectAtMostOnce, event: model.EvToolCommit, detail: "second ledger effect for task inv-1", badRows: 2, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 tool.commit/committed checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
	{
		// the database refuses the transaction; the agent that ignores
		// Commit's error releases a charge that never happened
		kind: "reject_before_commit", fault: at(model.EvToolCommit, 1, "reject_before_commit"),
		bad: agentOpts{Tx: true, IgnoreErr: true}, good: agentOpts{Tx: true},
		inv: model.InvNoInventedProgress, event: model.EvClaim, detail: "release although the ledger holds no effect of the task", badRows: 0, goodRows: 0,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/rejected!f1 checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodLine:   "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/rejected!f1 claim/hold",
		goodVerdit: model.ContainedFailure,
	},
	{
		// the connection drops before COMMIT; the database rolls back.
		// Taking the error as done invents the charge; retrying the
		// transaction on a fresh connection (database/sql does not retry
		// a transaction) recovers
		kind: "timeout_before_send", fault: at(model.EvToolCommit, 1, "timeout_before_send"),
		bad: agentOpts{Tx: true, IgnoreErr: true}, good: agentOpts{Tx: true, Retry: true},
		inv: model.InvNoInventedProgress, event: model.EvClaim, detail: "release although the ledger holds no effect of the task", badRows: 0, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 tool.commit/committed checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
	{
		// the checkpoint "charged" is stored, the worker restarts, and the
		// fresh instance's load is served the previous row, "planned": the
		// agent charges again
		kind: "stale_checkpoint", fault: at(model.EvCheckpointWrite, 2, "stale_checkpoint"),
		bad: agentOpts{}, good: agentOpts{Idempotent: true},
		inv: model.InvEffectAtMostOnce, event: model.EvToolCommit, detail: "second ledger effect for task inv-1", badRows: 2, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/committed checkpoint.write/ok!f1 " +
			"worker.crash/ worker.start/ checkpoint.load/ok tool.commit/committed checkpoint.write/ok checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
	{
		// the checkpoint "charged" is stored, the worker restarts, and the
		// fresh instance's load is served no row: the agent starts over and
		// charges again
		kind: "missing_checkpoint", fault: at(model.EvCheckpointWrite, 2, "missing_checkpoint"),
		bad: agentOpts{}, good: agentOpts{Idempotent: true},
		inv: model.InvEffectAtMostOnce, event: model.EvToolCommit, detail: "second ledger effect for task inv-1", badRows: 2, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/committed checkpoint.write/ok!f1 " +
			"worker.crash/ worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/committed checkpoint.write/ok checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
	{
		// the connection is refused before COMMIT is sent (network_error,
		// before commit): as timeout_before_send
		kind: "network_error", fault: at(model.EvToolCommit, 1, "network_error"),
		bad: agentOpts{Tx: true, IgnoreErr: true}, good: agentOpts{Tx: true, Retry: true},
		inv: model.InvNoInventedProgress, event: model.EvClaim, detail: "release although the ledger holds no effect of the task", badRows: 0, goodRows: 1,
		badLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodLine: "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 tool.commit/committed checkpoint.write/ok " +
			"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release",
		goodVerdit: model.Recovered,
	},
}

// TestCounterfactualPairs: per supported kind, an undefended agent breaks
// the named invariant at the named event, by fault f1, with the exact
// rows in the real database; the defended one holds.
func TestCounterfactualPairs(t *testing.T) {
	var kinds []string
	for _, p := range pairs {
		kinds = append(kinds, p.kind)
		t.Run(p.kind, func(t *testing.T) {
			s := newSystem(t, p.bad)
			res := run(t, s, p.fault)
			inv, _ := res.Invariant(p.inv)
			if inv.Held || inv.Event != p.event || inv.FaultID != "f1" || inv.Detail != p.detail {
				t.Fatalf("undefended: %s %+v, want broken at %s by f1: %q", p.inv, inv, p.event, p.detail)
			}
			if n := s.charges(t); n != p.badRows || res.Faults[0].Fired != 1 {
				t.Fatalf("undefended: %d charges, want %d; fault %+v", n, p.badRows, res.Faults[0])
			}
			if got := timeline(res); got != p.badLine {
				t.Fatalf("undefended timeline\n%s\nwant\n%s", got, p.badLine)
			}
			s = newSystem(t, p.good)
			res = run(t, s, p.fault)
			if !res.Held() || s.charges(t) != p.goodRows || res.Faults[0].Fired != 1 || res.RunVerdict != p.goodVerdit {
				t.Fatalf("defended: held %v, %d charges (want %d), fault %+v, verdict %s (want %s)", res.Held(), s.charges(t), p.goodRows, res.Faults[0], res.RunVerdict, p.goodVerdit)
			}
			if p.goodLine != "" {
				if got := timeline(res); got != p.goodLine {
					t.Fatalf("defended timeline\n%s\nwant\n%s", got, p.goodLine)
				}
			}
		})
	}
	got, want := strings.Join(kinds, ","), strings.Join(sqlfault.Kinds(), ",")
	for _, k := range sqlfault.Kinds() {
		if !strings.Contains(","+got+",", ","+k+",") {
			t.Errorf("kind %s has no counterfactual pair (pairs %s, kinds %s)", k, got, want)
		}
	}
}

// TestDeterministic: the same schedule twice, each on a fresh database,
// gives the same timeline.
func TestDeterministic(t *testing.T) {
	for _, p := range pairs {
		a := run(t, newSystem(t, p.bad), p.fault)
		b := run(t, newSystem(t, p.bad), p.fault)
		if fmt.Sprintf("%+v", a.Timeline) != fmt.Sprintf("%+v", b.Timeline) {
			t.Fatalf("%s: timelines differ\n%+v\n%+v", p.kind, a.Timeline, b.Timeline)
		}
	}
}

// TestUnenacted: a kind the adapter cannot enact at a checkpoint crossing
// stays unfired and the run is inconclusive (no restart either); a
// stale_checkpoint at the first write (no previous row to serve) too.
func TestUnenacted(t *testing.T) {
	// a kind with no database/sql rendering, and tool_timeout at a
	// transaction's COMMIT (a held COMMIT would keep its locks), do not
	// act on the call: reached, not fired, inconclusive
	for _, c := range []struct {
		f  model.FaultEntry
		tx bool
	}{{at(model.EvToolCommit, 1, "partial_success_response"), false}, {at(model.EvToolCommit, 1, "tool_timeout"), true}} {
		s := newSystem(t, agentOpts{Tx: c.tx})
		res := run(t, s, c.f)
		if res.Faults[0].Fired != 0 || !res.Faults[0].Reached || res.RunVerdict != model.Inconclusive || s.charges(t) != 1 {
			t.Fatalf("%s (tx %v): fault %+v, verdict %s, %d charges", c.f.Kind, c.tx, res.Faults[0], res.RunVerdict, s.charges(t))
		}
	}
	for _, f := range []model.FaultEntry{at(model.EvCheckpointWrite, 1, "stale_checkpoint"), at(model.EvCheckpointWrite, 2, "corrupt_checkpoint")} {
		s := newSystem(t, agentOpts{})
		res := run(t, s, f)
		if res.Faults[0].Fired != 0 || !res.Faults[0].Reached || res.RunVerdict != model.Inconclusive || s.charges(t) != 1 || strings.Contains(timeline(res), "worker.crash") {
			t.Fatalf("%s: fault %+v, verdict %s, %d charges, timeline %s", f.Kind, res.Faults[0], res.RunVerdict, s.charges(t), timeline(res))
		}
	}
}

// TestBadInput: errors that name what is wrong, and the run ends with them
// even when the agent swallows them.
func TestBadInput(t *testing.T) {
	base, err := sqlite.NewConnector(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlfault.New(nil, nil, sqlfault.Options{}); err == nil || err.Error() != "sqlfault: New: nil base connector" {
		t.Errorf("nil base: %v", err)
	}
	if _, err := sqlfault.New(base, nil, sqlfault.Options{}); err == nil || !strings.Contains(err.Error(), "nil model.Calls") {
		t.Errorf("nil calls: %v", err)
	}
	for name, tc := range map[string]struct {
		opt   agentOpts
		fault []model.FaultEntry
		call  func([]sqlfault.Statement) (model.ToolCall, error)
		want  string
	}{
		"no key": {opt: agentOpts{IgnoreErr: true}, call: func(st []sqlfault.Statement) (model.ToolCall, error) {
			return model.ToolCall{}, fmt.Errorf("%d statement(s): no idempotency key among the arguments", len(st))
		}, want: "sqlfault: Options.Call: 1 statement(s): no idempotency key among the arguments"},
	} {
		s := newSystem(t, tc.opt)
		s.opts.Call = tc.call
		_, err := runErr(s, tc.fault...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: run error\n%v\nwant\n%s", name, err, tc.want)
		}
	}
}

// TestParse: the default classifier's parser.
func TestParse(t *testing.T) {
	for q, want := range map[string]string{
		`INSERT INTO charges (a) VALUES (?)`:                 "insert charges",
		`insert or replace into "Main"."CheckPoints" values`: "insert checkpoints",
		`REPLACE INTO [cp] VALUES (1)`:                       "replace cp",
		`UPDATE OR ROLLBACK cp SET x = 1`:                    "update cp",
		`update cp set x = 1`:                                "update cp",
		`DELETE FROM main.cp WHERE x`:                        "delete cp",
		"-- load\nSELECT step FROM `cp` WHERE task = ?":      "select cp",
		`/* c */ select 1`:                                   "select ",
		`CREATE TABLE cp (x)`:                                "create ",
		``:                                                   " ",
	} {
		v, tb := sqlfault.Parse(q)
		if got := v + " " + tb; got != want {
			t.Errorf("Parse(%q) = %q, want %q", q, got, want)
		}
	}
	c := sqlfault.TableClassifier("cp")
	for q, want := range map[string]sqlfault.Class{
		`INSERT INTO cp VALUES (1)`:    {Op: sqlfault.OpCheckpointWrite, Table: "cp"},
		`SELECT * FROM cp`:             {Op: sqlfault.OpCheckpointLoad, Table: "cp"},
		`DELETE FROM charges`:          {Op: sqlfault.OpEffect, Table: "charges"},
		`SELECT * FROM charges`:        {},
		`CREATE TABLE charges (x int)`: {},
	} {
		if got := c(q); got != want {
			t.Errorf("classify(%q) = %+v, want %+v", q, got, want)
		}
	}
}

// TestErrors: what the agent's charge sees under each kind: the lost
// reply is not driver.ErrBadConn (database/sql must not retry it), the
// lost connection before COMMIT is, a refusal wraps ErrRejected, and the
// held statement's ErrBadConn never reaches the agent (database/sql
// retried it).
func TestErrors(t *testing.T) {
	for kind, check := range map[string]func(error) bool{
		"timeout_after_commit": func(err error) bool {
			return errors.Is(err, sqlfault.ErrOutcomeUnknown) && !errors.Is(err, driver.ErrBadConn)
		},
		"reject_before_commit": func(err error) bool { return errors.Is(err, sqlfault.ErrRejected) },
		"timeout_before_send": func(err error) bool {
			return errors.Is(err, driver.ErrBadConn) && err.Error() == "sqlfault: tool.commit (COMMIT of 1 effect statement(s)): connection lost mid-transaction, before COMMIT was sent; the database rolled the transaction back: "+driver.ErrBadConn.Error()
		},
	} {
		s := newSystem(t, agentOpts{Tx: true})
		run(t, s, at(model.EvToolCommit, 1, kind))
		if len(s.errs) != 1 || !check(s.errs[0]) {
			t.Errorf("%s: errors %v", kind, s.errs)
		}
	}
	s := newSystem(t, agentOpts{})
	run(t, s, at(model.EvToolCommit, 1, "tool_timeout"))
	if len(s.errs) != 1 || s.errs[0] != nil {
		t.Errorf("tool_timeout: errors %v", s.errs)
	}
}

// TestBadConnBeforeSend: outside a transaction a connection lost before
// the statement was sent answers driver.ErrBadConn, and database/sql's
// own retry on a fresh connection is then right: one charge, held.
func TestBadConnBeforeSend(t *testing.T) {
	s := newSystem(t, agentOpts{})
	res := run(t, s, at(model.EvToolCommit, 1, "timeout_before_send"))
	want := "worker.start/ checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok tool.commit/unknown!f1 tool.commit/committed checkpoint.write/ok " +
		"checkpoint.load/ok checkpoint.write/ok checkpoint.load/ok claim/release"
	if got := timeline(res); got != want || !res.Held() || s.charges(t) != 1 || len(s.errs) != 1 || s.errs[0] != nil {
		t.Fatalf("timeline %s, held %v, %d charges, errors %v", got, res.Held(), s.charges(t), s.errs)
	}
}

// TestStaleInTransaction: the stale rows are served to a load through a
// prepared statement inside the caller's transaction (a savepoint), with
// the same outcome as outside one.
func TestStaleInTransaction(t *testing.T) {
	p := pairs[4]
	s := newSystem(t, agentOpts{TxLoad: true})
	res := run(t, s, p.fault)
	inv, _ := res.Invariant(p.inv)
	if inv.Held || inv.Event != p.event || inv.FaultID != "f1" || s.charges(t) != 2 || timeline(res) != p.badLine {
		t.Fatalf("%+v, %d charges, timeline %s", inv, s.charges(t), timeline(res))
	}
	s = newSystem(t, agentOpts{TxLoad: true, Idempotent: true})
	if res := run(t, s, p.fault); !res.Held() || s.charges(t) != 1 {
		t.Fatalf("defended: held %v, %d charges", res.Held(), s.charges(t))
	}
	// the database holds the newest checkpoint: the stale rows were only served
	var step int
	if err := s.oracle.QueryRow(`SELECT step FROM checkpoints WHERE task = 'inv-1'`).Scan(&step); err != nil || step != 3 {
		t.Fatalf("checkpoint step %d, %v", step, err)
	}
}

// pinnedSystem runs production code that holds one *sql.Conn (which
// database/sql never retries on): an autocommit charge, then, whatever it
// answered, a transaction that charges a second action.
type pinnedSystem struct {
	*system
	errs []error
}

func (s *pinnedSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	base, err := sqlite.NewConnector(s.dsn)
	if err != nil {
		return model.Claim{}, err
	}
	c, err := sqlfault.New(base, env.Calls, s.opts)
	if err != nil {
		return model.Claim{}, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return model.Claim{}, err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO charges (action, subject, amount) VALUES ('a1', ?, 1)`, task.Subject)
	s.errs = append(s.errs, err)
	conn.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return model.Claim{}, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO charges (action, subject, amount) VALUES ('a2', ?, 1)`, task.Subject); err != nil {
		return model.Claim{}, err
	}
	s.errs = append(s.errs, tx.Commit())
	return model.Claim{Verdict: model.ClaimHold}, nil
}

// TestHeldDeliveredAtCommit: a statement tool_timeout holds on a pinned
// connection (no database/sql retry: the code sees driver.ErrBadConn)
// reaches the database just before the next crossing, a transaction's
// COMMIT: it runs in that transaction (which holds SQLite's write lock),
// after its INSERT, just before COMMIT.
func TestHeldDeliveredAtCommit(t *testing.T) {
	s := &pinnedSystem{system: newSystem(t, agentOpts{})}
	h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
	res, err := h.Run(func() model.System { return s }, &model.Schedule{Version: model.ScheduleVersion, Seed: "sql",
		Faults: []model.FaultEntry{at(model.EvToolCommit, 1, "tool_timeout")}})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	rows, err := s.oracle.Query(`SELECT action FROM charges ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a string
		rows.Scan(&a)
		actions = append(actions, a)
	}
	rows.Close()
	if len(s.errs) != 2 || !errors.Is(s.errs[0], driver.ErrBadConn) || s.errs[1] != nil || strings.Join(actions, ",") != "a2,a1" ||
		timeline(res) != "worker.start/ tool.commit/unknown!f1 tool.commit/committed claim/hold" {
		t.Fatalf("errors %v, rows %v, timeline %s", s.errs, actions, timeline(res))
	}
}

// TestKinds: the kinds are catalogue kinds, in catalogue order, then
// network_error, outside it, each at the event the adapter enacts it at.
func TestKinds(t *testing.T) {
	var order []string
	for _, sp := range append(model.Catalogue(), model.CacheAndWorkerKinds()...) {
		for _, k := range sqlfault.Kinds() {
			if sp.Kind == k {
				order = append(order, k)
			}
		}
	}
	if strings.Join(order, ",") != strings.Join(sqlfault.Kinds(), ",") {
		t.Fatalf("kinds %v, catalogue order %v", sqlfault.Kinds(), order)
	}
	for _, k := range sqlfault.Kinds() {
		sp, err := model.Spec(k)
		want := model.EvToolCommit
		if k == "stale_checkpoint" || k == "missing_checkpoint" {
			want = model.EvCheckpointWrite
		}
		if err != nil || sp.Event != want {
			t.Errorf("%s: event %s, want %s (%v)", k, sp.Event, want, err)
		}
	}
}

// TestCall: Options.Call names the effect's ToolCall from its statements'
// arguments; the crossing records the tool and key, and each checkpoint
// crossing its table (the stale one what it served the restarted worker).
func TestCall(t *testing.T) {
	s := newSystem(t, agentOpts{Tx: true})
	var seen []string
	s.opts.Call = func(st []sqlfault.Statement) (model.ToolCall, error) {
		seen = append(seen, fmt.Sprint(len(st), " ", st[0].Args[0].Value))
		key, _ := st[0].Args[0].Value.(string)
		return model.ToolCall{Tool: "charge", RequestKey: key, Action: model.Action{IdempotencyKey: key}}, nil
	}
	res := run(t, s, at(model.EvCheckpointWrite, 2, "stale_checkpoint"))
	var got []string
	for _, e := range res.Timeline.Events()[1:9] {
		got = append(got, fmt.Sprintf("%s#%d %s %q", e.Event, e.Ordinal, e.Tool, e.Detail))
	}
	want := []string{
		`checkpoint.load#1  "checkpoints"`,
		`checkpoint.write#1  "checkpoints"`,
		`checkpoint.load#2  "checkpoints"`,
		`tool.commit#1 charge "charge key inv-1:charge replayed false receipt false"`,
		`checkpoint.write#2  "checkpoints: the next load is served the rows before this write"`,
		`worker.crash#0  "worker restarted after checkpoint.write#2 (stale_checkpoint)"`,
		`worker.start#2  ""`,
		`checkpoint.load#3  "checkpoints: served the rows before checkpoint.write#2"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || strings.Join(seen, ",") != "1 inv-1:charge,1 inv-1:charge" {
		t.Fatalf("events\n%s\nwant\n%s\ncalls %v", strings.Join(got, "\n"), strings.Join(want, "\n"), seen)
	}
}

// TestMissingCheckpoint: the restarted worker's first load is served no
// row, the database keeping the newest checkpoint; its next load reads
// the table.
func TestMissingCheckpoint(t *testing.T) {
	s := newSystem(t, agentOpts{Idempotent: true})
	res := run(t, s, at(model.EvCheckpointWrite, 2, "missing_checkpoint"))
	evs := res.Timeline.Events()
	if !res.Held() || s.charges(t) != 1 || evs[8].Event != model.EvCheckpointLoad || evs[8].Detail != "checkpoints: served no row (missing) after checkpoint.write#2" ||
		evs[10].Event != model.EvCheckpointLoad || evs[10].Detail != "checkpoints" {
		t.Fatalf("held %v, %d charges, timeline %+v", res.Held(), s.charges(t), evs)
	}
}

// noter charges once, then, in a defer, writes a note to a table that
// crosses nothing (the classifier's Class{}); noteErrs records each
// defer's error.
type noter struct {
	*system
	noteErrs *[]error
}

func (n noter) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	base, err := sqlite.NewConnector(n.dsn)
	if err != nil {
		return model.Claim{}, err
	}
	opts := n.opts
	opts.Classify = func(q string) sqlfault.Class {
		if _, table := sqlfault.Parse(q); table == "notes" {
			return sqlfault.Class{}
		}
		return sqlfault.TableClassifier("checkpoints")(q)
	}
	c, err := sqlfault.New(base, env.Calls, opts)
	if err != nil {
		return model.Claim{}, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	defer func() {
		_, err := db.ExecContext(context.Background(), `INSERT INTO notes (task) VALUES (?)`, task.ID)
		*n.noteErrs = append(*n.noteErrs, err)
	}()
	if _, err := db.ExecContext(ctx, `INSERT INTO charges (action, subject, amount) VALUES (?, ?, ?)`, task.ID, task.Subject, task.Amount); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// TestCrashedWorkerWritesNothing: after a worker_crash at the charge, the
// crashed instance's deferred write to a table that crosses nothing fails
// with ErrWorkerCrashed and writes no row, even under a context of its
// own; the restarted instance's note is written.
func TestCrashedWorkerWritesNothing(t *testing.T) {
	s := newSystem(t, agentOpts{})
	if _, err := s.oracle.Exec(`CREATE TABLE notes (task TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var errs []error
	h := model.NewHarness(fixture, model.Options{Builtin: builtin})
	res, err := h.Run(func() model.System { return noter{system: s, noteErrs: &errs} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "crash", Faults: []model.FaultEntry{at(model.EvToolCommit, 1, "worker_crash")}})
	if err != nil {
		t.Fatal(err)
	}
	var notes int
	if err := s.oracle.QueryRow(`SELECT count(*) FROM notes`).Scan(&notes); err != nil {
		t.Fatal(err)
	}
	if res.Faults[0].Fired != 1 || len(errs) != 2 || !errors.Is(errs[0], model.ErrWorkerCrashed) || errs[1] != nil || notes != 1 {
		t.Fatalf("fault %+v, defers' errors %v, %d notes, timeline %s", res.Faults[0], errs, notes, timeline(res))
	}
}

// TestHeldDroppedWithCrashedWorker: a statement tool_timeout holds when
// the worker crashes at the same charge is dropped with the crashed
// worker's connection, never run on the restarted worker's in place of
// its own charge (which ran the charge twice): one row, no harness error.
func TestHeldDroppedWithCrashedWorker(t *testing.T) {
	s := newSystem(t, agentOpts{})
	h := model.NewHarness(fixture, model.Options{Builtin: builtin})
	res, err := h.Run(func() model.System { return s }, &model.Schedule{Version: model.ScheduleVersion, Seed: "held",
		Faults: []model.FaultEntry{at(model.EvToolCommit, 1, "tool_timeout"), at(model.EvToolCommit, 1, "worker_crash")}})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.charges(t); n != 1 || !res.Held() || res.Faults[0].Fired != 1 || res.Faults[1].Fired != 1 {
		t.Fatalf("%d charges, held %v, faults %+v, timeline %s", n, res.Held(), res.Faults, timeline(res))
	}
}

// TestNetworkErrorAfterCommit: the connection is reset after the
// database committed the charge (network_error, target after_commit):
// the caller sees ErrOutcomeUnknown. The agent that retries the
// transaction charges twice (effect_at_most_once, from the database's
// rows); the one whose charge is idempotent charges once.
func TestNetworkErrorAfterCommit(t *testing.T) {
	f := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "network_error", Target: "after_commit"}
	s := newSystem(t, agentOpts{Tx: true, Retry: true})
	res := run(t, s, f)
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "second ledger effect for task inv-1" || s.charges(t) != 2 {
		t.Fatalf("retry: %+v, %d charges, timeline %s", inv, s.charges(t), timeline(res))
	}
	s = newSystem(t, agentOpts{Tx: true, Retry: true, Idempotent: true})
	if res := run(t, s, f); !res.Held() || s.charges(t) != 1 || res.Faults[0].Fired != 1 {
		t.Fatalf("idempotent: held %v %+v, %d charges, timeline %s", res.Held(), res.Invariants, s.charges(t), timeline(res))
	}
}
