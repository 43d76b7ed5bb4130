// Package app is a storage janitor: an agent that deletes expired
// snapshots. It is production code written to be testable, and nothing
// more: it imports only the standard library, the MCP Go SDK and
// database/sql, and takes its three clients from its constructor.
//
//   - The inventory comes from a storage service over HTTP:
//     GET {base}/snapshots?volume=V answers an [Inventory], the service's
//     clock and every snapshot of the volume with its expiry.
//   - A deletion goes through the MCP tool delete_snapshot, whose
//     arguments are {"snapshot_id": ID} and whose _meta carries the
//     request's idempotency key ("idempotencyKey", derived from the
//     snapshot id so that every attempt of one deletion carries the same
//     key) and the logical action ("actionRef", the snapshot id). The
//     result's structured content is {"snapshot_id": ID, "receipt": R}; a
//     rate limit is an error result whose _meta "retryAfterMs" is the wait.
//   - Progress is checkpointed in a SQL table (janitor_checkpoint, created
//     by the janitor): the intent to delete, with its key, before the call,
//     and the confirmed deletion, with its receipt, after it. A sweep
//     resumes from the table: a snapshot it meant to delete is resolved by
//     reading the inventory back, or deleted again under the same key.
//
// A deletion is consequential and cannot be undone: the service moves a
// deleted snapshot to its recycle bin, and deleting a binned snapshot
// purges it. An unknown outcome (a timeout, an answer that does not
// decode, an answer without its receipt) is resolved by retrying under
// the same key, which the service answers with the original receipt, or
// by reading the inventory back; it never means "not deleted". A rate
// limit is waited out with time.Sleep, and every call has a deadline
// (context.WithTimeout).
//
// Options.FreshKeyOnRetry plants a bug: every retry goes out under a new
// key, so a deletion whose answer was lost is sent again as a new request
// and purges the snapshot it had already deleted.
package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is the MCP tool that deletes a snapshot.
const Tool = "delete_snapshot"

// Meta fields of a delete_snapshot call and its results.
const (
	// MetaKey carries the request's idempotency key.
	MetaKey = "idempotencyKey"
	// MetaActionRef carries the logical action: the snapshot id.
	MetaActionRef = "actionRef"
	// MetaRetryAfter, on an error result, is the wait in milliseconds
	// the service asks for before a retry (a rate limit).
	MetaRetryAfter = "retryAfterMs"
)

// Snapshot states in the inventory.
const (
	// StateAvailable: the snapshot exists and may be deleted.
	StateAvailable = "available"
	// StateBinned: the snapshot was deleted and sits in the recycle bin.
	StateBinned = "binned"
	// StatePurged: the snapshot was deleted from the bin; it is gone.
	StatePurged = "purged"
)

// Snapshot is one snapshot in the inventory. ExpiresMs is its expiry on
// the service's clock, in milliseconds.
type Snapshot struct {
	ID        string `json:"id"`
	Volume    string `json:"volume"`
	ExpiresMs int64  `json:"expires_ms"`
	State     string `json:"state"`
	// Deletion is the receipt of the service's last deletion of the
	// snapshot ("" for none it made).
	Deletion string `json:"deletion,omitempty"`
}

// Inventory is the service's answer to a read: its clock when it read
// (NowMs, milliseconds) and the volume's snapshots.
type Inventory struct {
	NowMs     int64      `json:"now_ms"`
	Snapshots []Snapshot `json:"snapshots"`
}

// Options configure a Janitor. The zero value is the correct janitor.
type Options struct {
	// FreshKeyOnRetry is the planted bug: a retry of a deletion goes out
	// under a new idempotency key, so the service cannot recognise it.
	FreshKeyOnRetry bool
	// Attempts bounds the calls of one deletion (default 3); the read of
	// the inventory is retried as often.
	Attempts int
	// CallTimeout is the deadline of each call (default 5s).
	CallTimeout time.Duration
	// Backoff is the wait after an unknown outcome before the retry
	// (default 50ms); a rate limit's wait is the service's.
	Backoff time.Duration
}

// Janitor deletes a volume's expired snapshots. Build it with New.
type Janitor struct {
	http    *http.Client
	base    string
	session *mcp.ClientSession
	db      *sql.DB
	opts    Options
}

// New returns a janitor that reads the inventory with hc from baseURL
// (the service's root, "http://storage.internal"), deletes through
// session and checkpoints in db.
func New(hc *http.Client, baseURL string, session *mcp.ClientSession, db *sql.DB, opts Options) *Janitor {
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 5 * time.Second
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 50 * time.Millisecond
	}
	return &Janitor{http: hc, base: baseURL, session: session, db: db, opts: opts}
}

// Report is what a sweep did: the snapshots it deleted (confirmed by a
// receipt or by the inventory read back), the expired ones whose
// deletion it could not confirm, and the number it left alone because
// they had not expired.
type Report struct {
	Deleted []string
	// Receipts are the service's receipts of the deletions in Deleted,
	// in the same order ("" where the service named none).
	Receipts   []string
	Unresolved []string
	Kept       int
}

// Key is the idempotency key of the deletion of snapshot id: the same for
// every attempt and every resumed sweep.
func Key(id string) string { return "janitor:delete:" + id }

// Checkpoint states.
const (
	cpIntent  = "intent"
	cpDeleted = "deleted"
)

type checkpoint struct {
	key, state, receipt string
}

// Sweep deletes the expired snapshots of volume. It returns an error when
// the inventory cannot be read, the checkpoint table fails, or a call
// fails in a way no retry resolves (the context ended); an unconfirmed
// deletion is not an error but a Report.Unresolved entry.
func (j *Janitor) Sweep(ctx context.Context, volume string) (Report, error) {
	var rep Report
	if _, err := j.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS janitor_checkpoint (
		snapshot TEXT PRIMARY KEY, volume TEXT NOT NULL, key TEXT NOT NULL, state TEXT NOT NULL, receipt TEXT NOT NULL DEFAULT '')`); err != nil {
		return rep, fmt.Errorf("creating the checkpoint table: %w", err)
	}
	done, err := j.load(ctx, volume)
	if err != nil {
		return rep, err
	}
	inv, err := j.inventory(ctx, volume)
	if err != nil {
		return rep, err
	}
	sort.Slice(inv.Snapshots, func(a, b int) bool { return inv.Snapshots[a].ID < inv.Snapshots[b].ID })
	for _, s := range inv.Snapshots {
		cp, seen := done[s.ID]
		switch {
		case seen && cp.state == cpDeleted:
			rep.Deleted, rep.Receipts = append(rep.Deleted, s.ID), append(rep.Receipts, cp.receipt)
			continue
		case s.State != StateAvailable:
			if seen { // this janitor meant to delete it, and it is gone: the earlier attempt did it
				if err := j.confirm(ctx, s.ID, s.Deletion); err != nil {
					return rep, err
				}
				rep.Deleted, rep.Receipts = append(rep.Deleted, s.ID), append(rep.Receipts, s.Deletion)
			}
			continue
		case s.ExpiresMs > inv.NowMs:
			rep.Kept++
			continue
		}
		key := Key(s.ID)
		if seen && j.opts.FreshKeyOnRetry {
			key = cp.key + "+resume"
		}
		if _, err := j.db.ExecContext(ctx, `INSERT OR REPLACE INTO janitor_checkpoint (snapshot, volume, key, state) VALUES (?, ?, ?, ?)`,
			s.ID, volume, key, cpIntent); err != nil {
			return rep, fmt.Errorf("checkpointing the deletion of %s: %w", s.ID, err)
		}
		receipt, ok, err := j.delete(ctx, volume, s.ID, key)
		if err != nil {
			return rep, err
		}
		if ok {
			rep.Deleted, rep.Receipts = append(rep.Deleted, s.ID), append(rep.Receipts, receipt)
		} else {
			rep.Unresolved = append(rep.Unresolved, s.ID)
		}
	}
	return rep, nil
}

// load reads the volume's checkpoints.
func (j *Janitor) load(ctx context.Context, volume string) (map[string]checkpoint, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT snapshot, key, state, receipt FROM janitor_checkpoint WHERE volume = ?`, volume)
	if err != nil {
		return nil, fmt.Errorf("loading the checkpoints of %s: %w", volume, err)
	}
	defer rows.Close()
	out := map[string]checkpoint{}
	for rows.Next() {
		var id string
		var cp checkpoint
		if err := rows.Scan(&id, &cp.key, &cp.state, &cp.receipt); err != nil {
			return nil, fmt.Errorf("loading the checkpoints of %s: %w", volume, err)
		}
		out[id] = cp
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("loading the checkpoints of %s: %w", volume, err)
	}
	return out, nil
}

// confirm records a confirmed deletion.
func (j *Janitor) confirm(ctx context.Context, id, receipt string) error {
	if _, err := j.db.ExecContext(ctx, `UPDATE janitor_checkpoint SET state = ?, receipt = ? WHERE snapshot = ?`, cpDeleted, receipt, id); err != nil {
		return fmt.Errorf("checkpointing the deletion of %s: %w", id, err)
	}
	return nil
}

// deleted is the result of a delete_snapshot call.
type deleted struct {
	SnapshotID string `json:"snapshot_id"`
	Receipt    string `json:"receipt"`
}

// delete deletes snapshot id under key, retrying an unknown outcome and
// waiting out a rate limit, and reports whether the deletion is
// confirmed (by a receipt or by the inventory read back) and its receipt.
func (j *Janitor) delete(ctx context.Context, volume, id, key string) (string, bool, error) {
	for attempt := 1; attempt <= j.opts.Attempts; attempt++ {
		if attempt > 1 && j.opts.FreshKeyOnRetry {
			key = Key(id) + "+retry" + strconv.Itoa(attempt)
		}
		res, err := j.call(ctx, id, key)
		switch {
		case ctx.Err() != nil:
			return "", false, ctx.Err()
		case err != nil: // a transport error or a timeout: the outcome is unknown
			if !sleep(ctx, j.opts.Backoff) {
				return "", false, ctx.Err()
			}
			continue
		case res.IsError:
			if wait, ok := retryAfter(res); ok {
				if !sleep(ctx, wait) {
					return "", false, ctx.Err()
				}
				continue
			}
			// an explicit refusal (or "not found"): nothing to retry; the
			// inventory says whether the snapshot is gone
			return j.readBack(ctx, volume, id)
		}
		var d deleted
		if decode(res, &d) && d.Receipt != "" && d.SnapshotID == id {
			return d.Receipt, true, j.confirm(ctx, id, d.Receipt)
		}
		// an answer that does not decode, or without its receipt: unknown
		if !sleep(ctx, j.opts.Backoff) {
			return "", false, ctx.Err()
		}
	}
	return j.readBack(ctx, volume, id)
}

// call makes one delete_snapshot call under its own deadline.
func (j *Janitor) call(ctx context.Context, id, key string) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, j.opts.CallTimeout)
	defer cancel()
	return j.session.CallTool(ctx, &mcp.CallToolParams{
		Name:      Tool,
		Arguments: map[string]any{"snapshot_id": id},
		Meta:      mcp.Meta{MetaKey: key, MetaActionRef: id},
	})
}

// readBack resolves an unconfirmed deletion from the inventory: the
// snapshot is deleted when the service no longer holds it available, and
// the service's record names the deletion's receipt.
func (j *Janitor) readBack(ctx context.Context, volume, id string) (string, bool, error) {
	inv, err := j.inventory(ctx, volume)
	if err != nil {
		return "", false, err
	}
	for _, s := range inv.Snapshots {
		if s.ID == id && s.State != StateAvailable {
			return s.Deletion, true, j.confirm(ctx, id, s.Deletion)
		}
	}
	return "", false, nil
}

// inventory reads the volume's snapshots, retrying a failed read and
// waiting out a 429's Retry-After.
func (j *Janitor) inventory(ctx context.Context, volume string) (Inventory, error) {
	var last error
	for attempt := 1; attempt <= j.opts.Attempts; attempt++ {
		inv, wait, err := j.read(ctx, volume)
		if err == nil {
			return inv, nil
		}
		last = err
		if ctx.Err() != nil {
			return Inventory{}, ctx.Err()
		}
		if wait == 0 {
			wait = j.opts.Backoff
		}
		if !sleep(ctx, wait) {
			return Inventory{}, ctx.Err()
		}
	}
	return Inventory{}, fmt.Errorf("reading the inventory of %s: %w", volume, last)
}

func (j *Janitor) read(ctx context.Context, volume string) (Inventory, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, j.opts.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.base+"/snapshots?volume="+url.QueryEscape(volume), nil)
	if err != nil {
		return Inventory{}, 0, err
	}
	resp, err := j.http.Do(req)
	if err != nil {
		return Inventory{}, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Inventory{}, 0, err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return Inventory{}, time.Duration(max(secs, 1)) * time.Second, errors.New("rate limited")
	}
	if resp.StatusCode != http.StatusOK {
		return Inventory{}, 0, fmt.Errorf("status %s", resp.Status)
	}
	var inv Inventory
	if err := json.Unmarshal(body, &inv); err != nil {
		return Inventory{}, 0, fmt.Errorf("decoding the inventory: %w", err)
	}
	return inv, 0, nil
}

// retryAfter reads a rate limit's wait from an error result's _meta.
func retryAfter(res *mcp.CallToolResult) (time.Duration, bool) {
	switch v := res.Meta[MetaRetryAfter].(type) {
	case float64:
		return time.Duration(v) * time.Millisecond, true
	case int64:
		return time.Duration(v) * time.Millisecond, true
	case int:
		return time.Duration(v) * time.Millisecond, true
	}
	return 0, false
}

// decode reads a result's structured content, or its first text content,
// into v; false when neither decodes.
func decode(res *mcp.CallToolResult, v any) bool {
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil && json.Unmarshal(b, v) == nil {
			return true
		}
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return json.Unmarshal([]byte(t.Text), v) == nil
		}
	}
	return false
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
