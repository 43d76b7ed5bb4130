package sqlfault

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/faultline/faultline/model"
)

// conn is a base connection whose statements cross the run.
type conn struct {
	c    *Connector
	base driver.Conn
	tx   *tx
	// bad: a fault lost the connection; database/sql discards it
	bad bool
}

// Unwrap returns the base connection.
func (cn *conn) Unwrap() driver.Conn { return cn.base }

// Close closes the base connection.
func (cn *conn) Close() error { return cn.base.Close() }

// Prepare prepares a statement on the base connection.
func (cn *conn) Prepare(query string) (driver.Stmt, error) {
	return cn.PrepareContext(context.Background(), query)
}

// PrepareContext prepares a statement on the base connection; its
// executions cross the run like the connection's own.
func (cn *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := prepare(ctx, cn.base, query)
	if err != nil {
		return nil, err
	}
	return &stmt{cn: cn, base: s, query: query}, nil
}

// Begin starts a transaction.
func (cn *conn) Begin() (driver.Tx, error) {
	return cn.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a transaction on the base connection.
func (cn *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if cn.tx != nil {
		return nil, errors.New("sqlfault: BeginTx: a transaction is already open on this connection")
	}
	if err := cn.c.calls.Err(); err != nil {
		return nil, err
	}
	var (
		b   driver.Tx
		err error
	)
	if bt, ok := cn.base.(driver.ConnBeginTx); ok {
		b, err = bt.BeginTx(ctx, opts)
	} else {
		//lint:ignore SA1019 the base offers no BeginTx
		b, err = cn.base.Begin()
	}
	if err != nil {
		return nil, err
	}
	cn.tx = &tx{cn: cn, base: b, ctx: ctx}
	return cn.tx, nil
}

// ExecContext runs a statement on the base connection, crossing the run
// as its class says.
func (cn *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, _, err := cn.run(ctx, query, args, false, func(ctx context.Context) (driver.Result, driver.Rows, error) {
		r, err := execBase(ctx, cn.base, query, args)
		return r, nil, err
	})
	return res, err
}

// QueryContext runs a query on the base connection, crossing the run as
// its class says.
func (cn *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	_, rows, err := cn.run(ctx, query, args, true, func(ctx context.Context) (driver.Result, driver.Rows, error) {
		r, err := queryBase(ctx, cn.base, query, args)
		return nil, r, err
	})
	return rows, err
}

// Ping pings the base connection when it can.
func (cn *conn) Ping(ctx context.Context) error {
	if cn.bad {
		return driver.ErrBadConn
	}
	if p, ok := cn.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// ResetSession reports a connection a fault lost as bad, and otherwise
// asks the base.
func (cn *conn) ResetSession(ctx context.Context) error {
	if cn.bad {
		return driver.ErrBadConn
	}
	if r, ok := cn.base.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid is false for a connection a fault lost, else the base's answer.
func (cn *conn) IsValid() bool {
	if cn.bad {
		return false
	}
	if v, ok := cn.base.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// CheckNamedValue asks the base, or the default conversion.
func (cn *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := cn.base.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// run executes one statement through its crossing. do runs it on the base.
func (cn *conn) run(ctx context.Context, query string, args []driver.NamedValue, isQuery bool, do func(context.Context) (driver.Result, driver.Rows, error)) (driver.Result, driver.Rows, error) {
	if err := cn.c.calls.Err(); err != nil {
		return nil, nil, err // a crashed worker writes nothing, in any table
	}
	cls := cn.c.classify(query)
	switch cls.Op {
	case OpEffect:
		if cn.tx != nil {
			cn.tx.effects = append(cn.tx.effects, Statement{Query: query, Args: args})
			return do(ctx)
		}
		return cn.autocommit(ctx, Statement{Query: query, Args: args}, isQuery, do)
	case OpCheckpointWrite:
		return cn.checkpointWrite(ctx, cls, isQuery, do)
	case OpCheckpointLoad:
		return cn.checkpointLoad(ctx, cls, do)
	case OpRefuse:
		why := cls.why
		if why == "" {
			why = strings.Join(tokens(query, 12), " ")
		}
		err := fmt.Errorf("sqlfault: refusing a statement the classifier cannot tell: %s (give Options.Classify a class for it)", why)
		cn.c.calls.Fail(err)
		return nil, nil, err
	}
	return do(ctx)
}

// materialized runs do and reads its rows to the end (a statement with
// RETURNING runs when its rows are read).
func materialized(do func(context.Context) (driver.Result, driver.Rows, error)) func(context.Context) (driver.Result, driver.Rows, error) {
	return func(ctx context.Context) (driver.Result, driver.Rows, error) {
		res, rows, err := do(ctx)
		if err != nil || rows == nil {
			return res, rows, err
		}
		m, err := readAll(rows)
		if err != nil {
			return nil, nil, err
		}
		return res, m, nil
	}
}

// autocommit crosses tool.commit for an effect outside a transaction.
func (cn *conn) autocommit(ctx context.Context, st Statement, isQuery bool, do func(context.Context) (driver.Result, driver.Rows, error)) (driver.Result, driver.Rows, error) {
	c := cn.c
	call, err := c.toolCall([]Statement{st})
	if err != nil {
		return nil, nil, err
	}
	do = materialized(do)
	var (
		res     driver.Result
		rows    driver.Rows
		realErr error
	)
	returned := false
	cm, err := c.calls.CommitOnly(ctx, call, renders(statementKinds), func(ctx context.Context, _ model.ToolCall) model.ToolResult {
		if returned {
			return c.dropHeld()
		}
		if late, ok := c.deliverHeld(ctx, cn.base); ok {
			return late
		}
		res, rows, realErr = do(ctx)
		return resultOf(realErr)
	})
	returned = true
	if err != nil {
		return nil, nil, err
	}
	hold := &held{query: st.Query, args: slices.Clone(st.Args), isQuery: isQuery}
	if err := c.render(cm, "tool.commit ("+firstWord(st.Query)+")", cn, nil, hold, realErr); err != nil {
		return nil, nil, err
	}
	if isQuery && rows == nil {
		rows = &memRows{}
	}
	return res, rows, nil
}

// checkpointWrite crosses checkpoint.write; an armed stale_checkpoint
// keeps the table's rows as they were before the write for the next load,
// an armed missing_checkpoint none (in the run, model.Step.Hold: the
// harness restarts the worker after the write, and the fresh instance's
// adapter serves them).
func (cn *conn) checkpointWrite(ctx context.Context, cls Class, isQuery bool, do func(context.Context) (driver.Result, driver.Rows, error)) (driver.Result, driver.Rows, error) {
	step, err := cn.c.calls.Enter(ctx, model.EvCheckpointWrite)
	if err != nil {
		return nil, nil, err
	}
	var snap *snapshot
	if hasKind(step.Faults(), "stale_checkpoint") && cls.Table != "" {
		if snap, err = cn.snapshot(ctx, cls.Table); err != nil {
			step.Done("error", err.Error())
			return nil, nil, err
		}
		snap.write = step.Ordinal()
	}
	if isQuery {
		do = materialized(do)
	}
	res, rows, err := do(ctx)
	if err != nil {
		step.Done("error", err.Error())
		return nil, nil, err
	}
	detail := cls.Table
	switch {
	case snap != nil && len(snap.rows) > 0:
		if err := step.Fire("stale_checkpoint"); err != nil {
			return nil, nil, err
		}
		step.Hold(snap)
		detail += ": the next load is served the rows before this write"
	case hasKind(step.Faults(), "missing_checkpoint") && cls.Table != "":
		if err := step.Fire("missing_checkpoint"); err != nil {
			return nil, nil, err
		}
		step.Hold(&snapshot{table: cls.Table, write: step.Ordinal()})
		detail += ": the next load is served no row"
	}
	return res, rows, step.Done("ok", detail)
}

// checkpointLoad crosses checkpoint.load, serving the stale rows a
// stale_checkpoint left for the table (none for a missing_checkpoint).
func (cn *conn) checkpointLoad(ctx context.Context, cls Class, do func(context.Context) (driver.Result, driver.Rows, error)) (driver.Result, driver.Rows, error) {
	step, err := cn.c.calls.Enter(ctx, model.EvCheckpointLoad)
	if err != nil {
		return nil, nil, err
	}
	snap, _ := step.Held().(*snapshot)
	if snap != nil && snap.table == cls.Table {
		step.Hold(nil)
	} else {
		snap = nil
	}
	if snap == nil {
		res, rows, err := do(ctx)
		if err != nil {
			step.Done("error", err.Error())
			return nil, nil, err
		}
		return res, rows, step.Done("ok", cls.Table)
	}
	rows, err := cn.serveStale(ctx, snap, do)
	if err != nil {
		step.Done("error", err.Error())
		return nil, nil, err
	}
	what := "the rows before"
	if snap.cols == nil {
		what = "no row (missing) after"
	}
	return nil, rows, step.Done("ok", fmt.Sprintf("%s: served %s checkpoint.write#%d", cls.Table, what, snap.write))
}

// snapshot reads every row of table on the connection.
func (cn *conn) snapshot(ctx context.Context, table string) (*snapshot, error) {
	rows, err := queryBase(ctx, cn.base, "SELECT * FROM "+quoteName(table), nil)
	if err != nil {
		return nil, fmt.Errorf("sqlfault: stale_checkpoint: reading %s: %w", table, err)
	}
	m, err := readAll(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlfault: stale_checkpoint: reading %s: %w", table, err)
	}
	return &snapshot{table: table, cols: m.cols, rows: m.vals}, nil
}

// serveStale runs the load against the snapshot: in a transaction (a
// savepoint inside the caller's) that puts the snapshot's rows back, runs
// the query, and is rolled back.
func (cn *conn) serveStale(ctx context.Context, s *snapshot, do func(context.Context) (driver.Result, driver.Rows, error)) (out driver.Rows, err error) {
	exec := func(q string, args ...driver.NamedValue) error {
		_, err := execBase(ctx, cn.base, q, args)
		return err
	}
	if cn.tx != nil {
		if err := exec("SAVEPOINT sqlfault_stale"); err != nil {
			return nil, err
		}
		defer func() {
			err = errors.Join(err, exec("ROLLBACK TO sqlfault_stale"), exec("RELEASE sqlfault_stale"))
		}()
	} else {
		var t driver.Tx
		if bt, ok := cn.base.(driver.ConnBeginTx); ok {
			t, err = bt.BeginTx(ctx, driver.TxOptions{})
		} else {
			//lint:ignore SA1019 the base offers no BeginTx
			t, err = cn.base.Begin()
		}
		if err != nil {
			return nil, err
		}
		defer func() { err = errors.Join(err, t.Rollback()) }()
	}
	if err := exec("DELETE FROM " + quoteName(s.table)); err != nil {
		return nil, fmt.Errorf("sqlfault: stale_checkpoint: %w", err)
	}
	names := make([]string, len(s.cols))
	marks := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i], marks[i] = quoteName(c), "?"
	}
	ins := "INSERT INTO " + quoteName(s.table) + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	for _, row := range s.rows {
		args := make([]driver.NamedValue, len(row))
		for i, v := range row {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		if err := exec(ins, args...); err != nil {
			return nil, fmt.Errorf("sqlfault: stale_checkpoint: %w", err)
		}
	}
	_, rows, err := materialized(do)(ctx)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = &memRows{}
	}
	return rows, nil
}

// tx is a base transaction whose Commit crosses tool.commit when it holds
// effects.
type tx struct {
	cn      *conn
	base    driver.Tx
	ctx     context.Context
	effects []Statement
}

// Commit commits the base transaction, through a tool.commit crossing when
// the transaction holds an effect.
func (t *tx) Commit() error {
	cn, c := t.cn, t.cn.c
	cn.tx = nil
	if err := c.calls.Err(); err != nil {
		return errors.Join(err, t.base.Rollback()) // a crashed worker commits nothing
	}
	if len(t.effects) == 0 {
		return t.base.Commit()
	}
	call, err := c.toolCall(t.effects)
	if err != nil {
		return errors.Join(err, t.base.Rollback())
	}
	var realErr error
	returned := false
	cm, err := c.calls.CommitOnly(t.ctx, call, renders(commitKinds), func(ctx context.Context, _ model.ToolCall) model.ToolResult {
		if returned {
			return c.dropHeld()
		}
		if late, ok := c.deliverHeld(ctx, cn.base); ok {
			return late
		}
		realErr = t.base.Commit()
		return resultOf(realErr)
	})
	returned = true
	if err != nil {
		if !cm.Sent {
			t.base.Rollback()
		}
		return err
	}
	return c.render(cm, fmt.Sprintf("tool.commit (COMMIT of %d effect statement(s))", len(t.effects)), cn, t.base.Rollback, nil, realErr)
}

// Rollback rolls the base transaction back.
func (t *tx) Rollback() error {
	t.cn.tx = nil
	return t.base.Rollback()
}

// stmt is a prepared statement whose executions cross the run.
type stmt struct {
	cn    *conn
	base  driver.Stmt
	query string
}

// Close closes the base statement.
func (s *stmt) Close() error { return s.base.Close() }

// NumInput is the base statement's.
func (s *stmt) NumInput() int { return s.base.NumInput() }

// Exec runs the statement with positional arguments.
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query runs the query with positional arguments.
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

// ExecContext runs the statement; one that crosses the run goes through
// the connection (so a held statement does not depend on this prepared
// one, which database/sql closes with a lost connection).
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.cn.c.classify(s.query).Op != OpNone {
		return s.cn.ExecContext(ctx, s.query, args)
	}
	return stmtExec(ctx, s.base, args)
}

// QueryContext runs the query; one that crosses the run goes through the
// connection.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.cn.c.classify(s.query).Op != OpNone {
		return s.cn.QueryContext(ctx, s.query, args)
	}
	return stmtQuery(ctx, s.base, args)
}

// CheckNamedValue asks the connection.
func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error { return s.cn.CheckNamedValue(nv) }

// --- the base's optional interfaces ---

func prepare(ctx context.Context, b driver.Conn, q string) (driver.Stmt, error) {
	if p, ok := b.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, q)
	}
	return b.Prepare(q)
}

func execBase(ctx context.Context, b driver.Conn, q string, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := b.(driver.ExecerContext); ok {
		r, err := e.ExecContext(ctx, q, args)
		if !errors.Is(err, driver.ErrSkip) {
			return r, err
		}
	}
	s, err := prepare(ctx, b, q)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return stmtExec(ctx, s, args)
}

func queryBase(ctx context.Context, b driver.Conn, q string, args []driver.NamedValue) (driver.Rows, error) {
	if e, ok := b.(driver.QueryerContext); ok {
		r, err := e.QueryContext(ctx, q, args)
		if !errors.Is(err, driver.ErrSkip) {
			return r, err
		}
	}
	s, err := prepare(ctx, b, q)
	if err != nil {
		return nil, err
	}
	rows, err := stmtQuery(ctx, s, args)
	if err != nil {
		s.Close()
		return nil, err
	}
	m, err := readAll(rows)
	s.Close()
	return m, err
}

func stmtExec(ctx context.Context, s driver.Stmt, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := s.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	//lint:ignore SA1019 the base offers no ExecContext
	return s.Exec(values(args))
}

func stmtQuery(ctx context.Context, s driver.Stmt, args []driver.NamedValue) (driver.Rows, error) {
	if q, ok := s.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	//lint:ignore SA1019 the base offers no QueryContext
	return s.Query(values(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// memRows are rows read to the end.
type memRows struct {
	cols []string
	vals [][]driver.Value
	i    int
}

func readAll(r driver.Rows) (*memRows, error) {
	m := &memRows{cols: r.Columns()}
	for {
		row := make([]driver.Value, len(m.cols))
		err := r.Next(row)
		if err == io.EOF {
			break
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		for i, v := range row {
			if b, ok := v.([]byte); ok {
				row[i] = append([]byte(nil), b...) // the driver may reuse it
			}
		}
		m.vals = append(m.vals, row)
	}
	return m, r.Close()
}

func (m *memRows) Columns() []string { return m.cols }
func (m *memRows) Close() error      { return nil }
func (m *memRows) Next(dest []driver.Value) error {
	if m.i >= len(m.vals) {
		return io.EOF
	}
	copy(dest, m.vals[m.i])
	m.i++
	return nil
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func firstWord(q string) string {
	if t := tokens(q, 1); len(t) > 0 {
		return strings.ToUpper(t[0])
	}
	return "statement"
}

// The tool kinds an effect statement outside a transaction renders, and a
// transaction's COMMIT (which cannot be held: a held COMMIT keeps its
// locks); the others stay unfired at the crossing (model.Calls.CommitOnly).
var (
	statementKinds = []string{"timeout_after_commit", "timeout_before_send", "reject_before_commit", "tool_timeout", "network_error"}
	commitKinds    = []string{"timeout_after_commit", "timeout_before_send", "reject_before_commit", "network_error"}
)

// renders returns the kind filter of a list.
func renders(kinds []string) func(string) bool {
	return func(k string) bool { return slices.Contains(kinds, k) }
}
