package snapshots

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/model"
	"modernc.org/sqlite"
)

// BaseURL is the service's address as the janitor is given it: a loopback
// name the HTTP adapter allows; no socket is opened (the transport calls
// the handler in process).
const BaseURL = "http://localhost:8080"

// CheckpointTable is the janitor's checkpoint table.
const CheckpointTable = "janitor_checkpoint"

// runs numbers the runs of this process, for their database files.
var runs atomic.Int64

// World is what the worker instances of one run share: the storage
// service and the checkpoint database, a SQLite file of its own (the
// pure-Go driver: no cgo). Both are made at the first use, inside the
// run's synctest bubble, so that the service's clock is the bubble's.
type World struct {
	// Options are the janitor's options in this run (the planted bug).
	Options app.Options

	dir  string
	once sync.Once
	svc  *Service
	dsn  string
}

// NewWorld returns the world of one run of the janitor under opts, its
// database file in dir.
func NewWorld(dir string, opts app.Options) *World { return &World{Options: opts, dir: dir} }

func (w *World) init() {
	w.once.Do(func() {
		w.svc = NewService(Tenant, Inventory)
		w.dsn = "file:" + filepath.Join(w.dir, fmt.Sprintf("run-%d.db", runs.Add(1))) + "?_pragma=synchronous(off)&_pragma=journal_mode(memory)"
	})
}

// Service returns the run's storage service.
func (w *World) Service() *Service {
	w.init()
	return w.svc
}

// ProviderLedger returns the service's table of deletions, oldest first:
// the provider's own store, for model.Observed.
func (w *World) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return w.Service().Ledger(), nil
}

// Checkpoints returns a connector of the run's checkpoint database: wrap
// it (sqlfault.New) and open it with sql.OpenDB in each System.Run.
func (w *World) Checkpoints() driver.Connector {
	w.init()
	return connector{dsn: w.dsn}
}

// connector opens connections of the SQLite driver on a DSN.
type connector struct{ dsn string }

// Connect opens a connection.
func (c connector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite.Driver{}).Open(c.dsn)
}

// Driver returns the SQLite driver.
func (c connector) Driver() driver.Driver { return &sqlite.Driver{} }
