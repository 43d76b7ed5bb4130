// Package payouts is production code under test, written to be testable
// and nothing more: a payout worker over a real job queue,
// maragu.dev/goqite on SQLite. It imports no faultline package: its
// *sql.DB (the queue and its own ledger table) and its payout client come
// from its constructor.
//
// A job pays one account once. The worker reads its ledger row for the
// job (payout_ledger), writes the intent with its idempotency key before
// the call and the receipt after it, and answers an error by leaving the
// job to the queue, which delivers it again after its visibility timeout.
// The planted bug, Options.BlindResume, resumes without reading the
// ledger and mints the key from the process's clock: retries inside one
// process reuse it, but a restarted process pays under a new key.
package payouts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"maragu.dev/goqite"
)

// LedgerTable is the worker's own table: one row per job, its key, its
// state ("sending" or "paid") and the provider's receipt.
const LedgerTable = "payout_ledger"

// Job is a payout job's message body.
type Job struct {
	ID      string `json:"id"`
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
}

// Request is a call of the payout provider, Key its idempotency key.
type Request struct {
	Key     string
	Job     string
	Account string
	Amount  int64
}

// Receipt is the provider's answer: the payout's id.
type Receipt struct{ ID string }

// Client pays through the provider.
type Client func(ctx context.Context, req Request) (Receipt, error)

// Options are the worker's options.
type Options struct {
	// BlindResume is the planted bug: no ledger read, a key per process.
	BlindResume bool
}

// Worker takes payout jobs from a goqite queue.
type Worker struct {
	db   *sql.DB
	pay  Client
	opts Options
	keys map[string]string // the blind worker's keys, this process only
	paid map[string]string // job -> receipt, paid by this process
}

// New returns a worker over db (the queue's database and the ledger's)
// and pay.
func New(db *sql.DB, pay Client, opts Options) *Worker {
	return &Worker{db: db, pay: pay, opts: opts, keys: map[string]string{}, paid: map[string]string{}}
}

// Work takes the queue's jobs (goqite's Receive, Delete after a paid
// job) until job is paid or failed attempts times, or ctx is cancelled,
// and returns the job's receipt. A failed delivery is left to the queue,
// which delivers it again once its visibility timeout (1 s) passed.
func (w *Worker) Work(ctx context.Context, queue, job string, attempts int) (string, error) {
	if _, err := w.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+LedgerTable+` (job TEXT PRIMARY KEY, key TEXT NOT NULL, state TEXT NOT NULL, receipt TEXT NOT NULL DEFAULT '')`); err != nil {
		return "", err
	}
	q := goqite.New(goqite.NewOpts{DB: w.db, Name: queue, Timeout: time.Second, MaxReceive: 10})
	failed := 0
	var last error
	for w.paid[job] == "" {
		if failed >= attempts {
			return "", fmt.Errorf("payouts: job %s unpaid after %d attempts: %w", job, failed, last)
		}
		m, err := q.ReceiveAndWait(ctx, 100*time.Millisecond)
		if err != nil {
			return "", err
		}
		if err := w.pay1(ctx, m.Body); err != nil {
			failed, last = failed+1, err
			continue
		}
		if err := q.Delete(ctx, m.ID); err != nil {
			return "", err
		}
	}
	return w.paid[job], nil
}

// pay1 runs one delivery of a payout job.
func (w *Worker) pay1(ctx context.Context, body []byte) error {
	var j Job
	if err := json.Unmarshal(body, &j); err != nil {
		return err
	}
	key := "payout:" + j.ID
	if w.opts.BlindResume {
		if key = w.keys[j.ID]; key == "" {
			key = fmt.Sprintf("payout:%s:%d", j.ID, time.Now().UnixMilli())
			w.keys[j.ID] = key
		}
	} else {
		var k, state, receipt string
		err := w.db.QueryRowContext(ctx, `SELECT key, state, receipt FROM `+LedgerTable+` WHERE job = ?`, j.ID).Scan(&k, &state, &receipt)
		switch {
		case err == nil && state == "paid":
			w.paid[j.ID] = receipt
			return nil
		case err == nil:
			key = k
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	if _, err := w.db.ExecContext(ctx, `INSERT INTO `+LedgerTable+` (job, key, state) VALUES (?, ?, 'sending')
		ON CONFLICT (job) DO UPDATE SET key = excluded.key, state = 'sending'`, j.ID, key); err != nil {
		return err
	}
	rc, err := w.pay(ctx, Request{Key: key, Job: j.ID, Account: j.Account, Amount: j.Amount})
	if err != nil {
		return err
	}
	if _, err := w.db.ExecContext(ctx, `UPDATE `+LedgerTable+` SET state = 'paid', receipt = ? WHERE job = ?`, rc.ID, j.ID); err != nil {
		return err
	}
	w.paid[j.ID] = rc.ID
	return nil
}

// Enqueue puts job on queue, as the service that schedules payouts does.
func Enqueue(ctx context.Context, db *sql.DB, queue string, job Job) error {
	body, err := json.Marshal(job)
	if err != nil {
		return err
	}
	return goqite.New(goqite.NewOpts{DB: db, Name: queue}).Send(ctx, goqite.Message{Body: body})
}
