// Package sqlfault puts faultline's typed faults on database/sql. It is an
// adapter on model.Calls: the core decides, the adapter renders. A
// [Connector] wraps any driver.Connector; the code under test gets the
// *sql.DB that sql.OpenDB opens over it, and every statement that matters
// to the run crosses the harness through the run's Env.Calls, so it feeds
// the timeline, fault reports, invariants, verdicts, shrinking, replay and
// coverage like a call through the model's Env. The oracle reads the
// provider's own table through the System's model.Observed readback, never
// through the wrapper.
//
// Entry points:
//
//   - [New] wraps a base connector for one run; build it inside
//     System.Run and close the *sql.DB before Run returns;
//   - [Options], [Classifier], [Class], [Op], [TableClassifier], [Parse]:
//     which statements cross (an effect at tool.commit, once per
//     transaction; checkpoint writes and loads at checkpoint.write and
//     checkpoint.load) and the model.ToolCall an effect is;
//   - [Kinds]: the kinds rendered; any other kind armed at a crossing
//     stays unfired (model.Calls.CommitOnly) and the run is inconclusive;
//   - [ErrOutcomeUnknown], [ErrRejected]: renderings; [OutcomeOf]: what
//     the code saw, in the three outcomes.
//
// What each kind is over database/sql (the driver.ErrBadConn retry as
// tool_timeout, the lost connection mid-transaction, the lagging replica
// of stale_checkpoint): docs/adapters-sql.md.
package sqlfault

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/model"
)

// Kinds returns the kinds this package enacts (what Definition.Enacts
// lists): the catalogue's, in catalogue order, then network_error,
// outside it (a refused connection before the statement or COMMIT is
// sent, a reset one after the database committed); server_error has no
// rendering: a database answers a failure with its own error.
func Kinds() []string {
	return []string{"timeout_after_commit", "timeout_before_send", "reject_before_commit", "tool_timeout", "missing_checkpoint", "stale_checkpoint", "network_error"}
}

// ErrOutcomeUnknown is wrapped by the error of a statement or Commit whose
// reply timeout_after_commit lost: the database committed, the caller
// cannot know it.
var ErrOutcomeUnknown = errors.New("sqlfault: connection lost after the commit reached the database; outcome unknown")

// ErrRejected is wrapped by the error of a statement or Commit that
// reject_before_commit refused: nothing was written.
var ErrRejected = errors.New("sqlfault: the database rejected the transaction before any durable write")

// Statement is one statement of an effect: its query text and arguments.
type Statement struct {
	Query string
	Args  []driver.NamedValue
}

// Options configure a Connector.
type Options struct {
	// Classify classifies each statement; nil uses
	// TableClassifier(CheckpointTable).
	Classify Classifier
	// CheckpointTable is the default classifier's checkpoint table ("":
	// no statement is a checkpoint).
	CheckpointTable string
	// Call names the model.ToolCall an effect crosses tool.commit as, from
	// its statements (one outside a transaction, every effect statement of
	// the transaction otherwise): the tool, the request's idempotency key,
	// the action. An error (say, no key in the arguments) ends the run with
	// that error (Calls.Fail) and is returned to the caller. Nil names the
	// tool after the first statement's table, with no key.
	Call func(stmts []Statement) (model.ToolCall, error)
}

// Connector is a driver.Connector whose connections carry the run's faults.
// Open it with sql.OpenDB; closing that *sql.DB closes the Connector.
type Connector struct {
	base     driver.Connector
	calls    model.Calls
	classify Classifier
	call     func([]Statement) (model.ToolCall, error)

	mu   sync.Mutex
	held []*held // statements a tool_timeout holds, oldest first
}

// New wraps base for the run that handed the System calls. It returns an
// error for a nil base or calls.
func New(base driver.Connector, calls model.Calls, opts Options) (*Connector, error) {
	switch {
	case base == nil:
		return nil, errors.New("sqlfault: New: nil base connector")
	case calls == nil:
		return nil, errors.New("sqlfault: New: nil model.Calls (pass the run's Env.Calls)")
	}
	c := &Connector{base: base, calls: calls, classify: opts.Classify, call: opts.Call}
	if c.classify == nil {
		c.classify = defaultClassifier(opts.CheckpointTable)
	}
	return c, nil
}

// Connect opens a connection of the base connector and wraps it.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	b, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, base: b}, nil
}

// Driver returns the base connector's driver.
func (c *Connector) Driver() driver.Driver { return c.base.Driver() }

// Close drops the statements a tool_timeout still holds (as the model
// drops them at the end of a task) and closes the base connector when it
// is an io.Closer. sql.DB.Close calls it.
func (c *Connector) Close() error {
	c.mu.Lock()
	c.held = nil
	c.mu.Unlock()
	if cl, ok := c.base.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// toolCall names an effect's ToolCall, failing the run on an error.
func (c *Connector) toolCall(stmts []Statement) (model.ToolCall, error) {
	if c.call == nil {
		_, table := Parse(stmts[0].Query)
		if table == "" {
			table = "sql"
		}
		return model.ToolCall{Tool: table}, nil
	}
	tc, err := c.call(stmts)
	if err != nil {
		err = fmt.Errorf("sqlfault: Options.Call: %w", err)
		c.calls.Fail(err)
		return model.ToolCall{}, err
	}
	return tc, nil
}

// held is a statement the database still holds after the driver gave up.
type held struct {
	query   string
	args    []driver.NamedValue
	isQuery bool
}

// deliverHeld runs the oldest held statement, if any, on the connection
// of the crossing that delivers it (inside that crossing's transaction
// when it is a COMMIT: the transaction holds the database's write lock,
// so on SQLite nothing else could write before it commits); it reports
// whether there was one.
func (c *Connector) deliverHeld(ctx context.Context, on driver.Conn) (model.ToolResult, bool) {
	c.mu.Lock()
	if len(c.held) == 0 {
		c.mu.Unlock()
		return model.ToolResult{}, false
	}
	h := c.held[0]
	c.held = c.held[1:]
	c.mu.Unlock()
	var err error
	if h.isQuery {
		var rows driver.Rows
		if rows, err = queryBase(ctx, on, h.query, h.args); err == nil {
			_, err = readAll(rows)
		}
	} else {
		_, err = execBase(ctx, on, h.query, h.args)
	}
	return resultOf(err), true
}

// dropHeld answers the harness's late delivery of a statement this
// Connector held after its worker crashed (the harness calls the send of
// the crossing that held it once that crossing returned): the connection
// that held it was given up and the instance is gone, so the statement
// is dropped, never run on a connection of the restarted worker's.
func (c *Connector) dropHeld() model.ToolResult {
	c.mu.Lock()
	if len(c.held) > 0 {
		c.held = c.held[1:]
	}
	c.mu.Unlock()
	return model.ToolResult{Outcome: model.OutcomeUnknown, Class: model.ClassTimeout, Reason: "sqlfault: a statement held by a crashed worker's connection is dropped with it"}
}

// resultOf is the provider's answer for a statement or COMMIT that
// returned err: committed, or rejected with the driver's message.
func resultOf(err error) model.ToolResult {
	if err != nil {
		return model.ToolResult{Outcome: model.OutcomeRejected, Class: model.ClassRejected, Reason: err.Error()}
	}
	return model.ToolResult{Outcome: model.OutcomeCommitted}
}

// badConn wraps driver.ErrBadConn with what happened.
type badConn struct{ what string }

func (e badConn) Error() string { return "sqlfault: " + e.what + ": " + driver.ErrBadConn.Error() }
func (e badConn) Unwrap() error { return driver.ErrBadConn }

// render turns a commit crossing's answer into what the driver returns.
// rollback undoes the transaction (nil outside one); hold is the
// statement a tool_timeout keeps for a late delivery (nil in a
// transaction); realErr is the base's error when the request was sent.
func (c *Connector) render(cm model.Committed, ev string, cn *conn, rollback func() error, hold *held, realErr error) error {
	undo := func() {
		if rollback != nil && !cm.Sent {
			rollback()
		}
	}
	for _, k := range cm.Fired {
		switch k {
		case "timeout_after_commit":
			cn.bad = true
			return fmt.Errorf("%s: %w", ev, ErrOutcomeUnknown)
		case "reject_before_commit":
			undo()
			return fmt.Errorf("%s: %w", ev, ErrRejected)
		case "timeout_before_send":
			undo()
			cn.bad = true
			if rollback != nil {
				return badConn{ev + ": connection lost mid-transaction, before COMMIT was sent; the database rolled the transaction back"}
			}
			return badConn{ev + ": connection lost before the statement was sent"}
		case "network_error":
			cn.bad = true
			if cm.Sent {
				return fmt.Errorf("%s: connection reset by peer: %w", ev, ErrOutcomeUnknown)
			}
			undo()
			return badConn{ev + ": connection refused"}
		case "tool_timeout":
			if hold == nil {
				undo()
				err := fmt.Errorf("sqlfault: tool_timeout fired at %s: a transaction's COMMIT cannot be held (its locks would block the retry); place it at an autocommit statement", ev)
				c.calls.Fail(err)
				return err
			}
			cn.bad = true
			c.mu.Lock()
			c.held = append(c.held, hold)
			c.mu.Unlock()
			return badConn{ev + ": the driver gave up on the connection while the database still holds the statement"}
		}
	}
	if len(cm.Fired) > 0 {
		undo()
		err := fmt.Errorf("sqlfault: %s fired at %s: it has no database/sql rendering (supported: %s)", strings.Join(cm.Fired, ", "), ev, strings.Join(Kinds(), ", "))
		c.calls.Fail(err)
		return err
	}
	return realErr
}

// snapshot is a table's rows at one moment.
type snapshot struct {
	table string
	cols  []string
	rows  [][]driver.Value
	write int // the checkpoint.write crossing it was taken at
}

func hasKind(kinds []string, k string) bool { return slices.Contains(kinds, k) }

// defaultClassifiers are the TableClassifiers of New, by checkpoint
// table, shared by the runs of a process so that each keeps its classes.
var defaultClassifiers sync.Map

func defaultClassifier(table string) Classifier {
	if c, ok := defaultClassifiers.Load(table); ok {
		return c.(Classifier)
	}
	c, _ := defaultClassifiers.LoadOrStore(table, TableClassifier(table))
	return c.(Classifier)
}
