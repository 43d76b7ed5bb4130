// Package jobqueue tests a payout worker over a real job queue library,
// maragu.dev/goqite's job runner on SQLite (package payouts, unmodified),
// through faultline's adapters, restarts included: a worker_crash or a
// checkpoint kind crashes the worker's process and a fresh one resumes
// from what survives, the run's database file and the payout provider.
// World is what survives; Definition describes the system for every
// path; jobqueue_test.go is the glue and paths_test.go measures it
// (docs/production.md, "Restarts").
package jobqueue

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/faultline/faultline/examples/thirdparty/jobqueue/payouts"
	"github.com/faultline/faultline/model"
	"modernc.org/sqlite"
)

// goqiteSchema is goqite's schema for SQLite (schema_sqlite.sql of
// maragu.dev/goqite v0.4.0, which a user runs once).
const goqiteSchema = `create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0,
  priority integer not null default 0
) strict;
create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;
create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);`

// runs numbers the runs of this process, for their database files.
var runs atomic.Int64

// World is what the worker processes of one run share, and what survives
// a crash: the SQLite file holding the queue and the worker's ledger (the
// pure-Go driver, no cgo), with one job per task enqueued, and the payout
// provider. Both are made at their first use, inside the run's bubble.
type World struct {
	// Options are the worker's options in this run (the planted bug).
	Options payouts.Options

	dir  string
	once sync.Once
	dsn  string
	prov *Provider
	err  error
}

// NewWorld returns the world of one run under opts, its database file in
// dir.
func NewWorld(dir string, opts payouts.Options) *World { return &World{Options: opts, dir: dir} }

func (w *World) init() error {
	w.once.Do(func() {
		w.prov = &Provider{byKey: map[string]string{}}
		w.dsn = "file:" + filepath.Join(w.dir, fmt.Sprintf("run-%d.db", runs.Add(1))) + "?_pragma=synchronous(off)&_pragma=journal_mode(memory)&_pragma=busy_timeout(1000)"
		db := sql.OpenDB(connector{dsn: w.dsn})
		defer db.Close()
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, goqiteSchema); err != nil {
			w.err = err
			return
		}
		for _, t := range Fixture().Tasks {
			if err := payouts.Enqueue(ctx, db, Queue(t), payouts.Job{ID: t.ID, Account: t.Subject, Amount: t.Amount}); err != nil {
				w.err = err
				return
			}
		}
	})
	return w.err
}

// Store returns a connector of the run's database: wrap it (sqlfault.New)
// and open it with sql.OpenDB in each System.Run.
func (w *World) Store() (driver.Connector, error) {
	return connector{dsn: w.dsn}, w.init()
}

// Provider returns the run's payout provider.
func (w *World) Provider() *Provider {
	w.init()
	return w.prov
}

// ProviderLedger returns the provider's payouts, oldest first: its own
// store, for model.Observed.
func (w *World) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return w.Provider().Ledger(), nil
}

// Queue is the goqite queue of task t's job.
func Queue(t model.Task) string { return "payouts-" + t.Subject }

// Provider is a fake payout service: it pays each idempotency key once
// and answers a repeated key with its first receipt.
type Provider struct {
	mu     sync.Mutex
	byKey  map[string]string
	ledger []model.LedgerEntry
}

// Pay pays req, once per key.
func (p *Provider) Pay(_ context.Context, req payouts.Request) (payouts.Receipt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.byKey[req.Key]; ok {
		return payouts.Receipt{ID: id}, nil
	}
	id := fmt.Sprintf("po_%d", len(p.ledger)+1)
	p.byKey[req.Key] = id
	p.ledger = append(p.ledger, model.LedgerEntry{Tool: "payout", Key: req.Key, ActionRef: req.Job, Actor: Actor, Subject: req.Account,
		Tenant: Tenant, Purpose: Purpose, Amount: req.Amount, ReceiptID: id})
	return payouts.Receipt{ID: id}, nil
}

// Ledger returns a copy of the provider's payouts.
func (p *Provider) Ledger() []model.LedgerEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]model.LedgerEntry(nil), p.ledger...)
}

// connector opens connections of the SQLite driver on a DSN.
type connector struct{ dsn string }

// Connect opens a connection.
func (c connector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite.Driver{}).Open(c.dsn)
}

// Driver returns the SQLite driver.
func (c connector) Driver() driver.Driver { return &sqlite.Driver{} }
