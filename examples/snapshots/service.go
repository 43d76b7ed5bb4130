// Package snapshots tests the storage janitor of package app, unmodified,
// through faultline's adapters for production code. It holds the fake
// storage service the janitor talks to (Service: an HTTP inventory and an
// MCP server, both in process) and the janitor's Definition (Definition:
// its fixture, its invariants, and the System that wires the adapters
// around the real clients of each run). The tests are in this package's
// test files; docs/production.md walks through them.
package snapshots

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Service is the fake storage service of one run: the inventory of its
// snapshots, served over HTTP (Inventory), and the MCP server whose
// delete_snapshot tool deletes them (MCP). Its table of deletions is the
// provider's ledger (Ledger). Its clock is the time since it was built,
// read with time.Now, so that inside a synctest bubble it is the
// bubble's fake clock.
type Service struct {
	start  time.Time
	tenant string

	mu        sync.Mutex
	snapshots []app.Snapshot
	deletions []model.LedgerEntry
	replies   map[string]*mcp.CallToolResult // by idempotency key
	server    *mcp.Server
}

// NewService returns a service of tenant holding snapshots (expiries in
// milliseconds from now).
func NewService(tenant string, snapshots []app.Snapshot) *Service {
	s := &Service{start: time.Now(), tenant: tenant, snapshots: slices.Clone(snapshots), replies: map[string]*mcp.CallToolResult{}}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "storage", Version: "1.0.0"}, nil)
	destructive := true
	s.server.AddTool(&mcp.Tool{
		Name:        app.Tool,
		Description: "Delete a snapshot: an available one moves to the recycle bin, a binned one is purged. A call whose _meta carries idempotencyKey is answered once per key.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"snapshot_id":{"type":"string"}},"required":["snapshot_id"]}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: false},
	}, s.deleteSnapshot)
	return s
}

// now is the service's clock in milliseconds.
func (s *Service) now() int64 { return time.Since(s.start).Milliseconds() }

// MCP returns the service's MCP server.
func (s *Service) MCP() *mcp.Server { return s.server }

// Connect connects client, with its sending middleware installed first,
// to the service's MCP server over in-memory transports, and returns the
// session and the function that closes it and waits for the server's
// side to end (call it before the run returns: no goroutine may outlive
// a run).
func (s *Service) Connect(ctx context.Context, client *mcp.Client, middleware ...mcp.Middleware) (*mcp.ClientSession, func(), error) {
	client.AddSendingMiddleware(middleware...)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.server.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("storage service: %w", err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		ss.Wait()
		return nil, nil, fmt.Errorf("storage service: %w", err)
	}
	return cs, func() { cs.Close(); ss.Wait() }, nil
}

// Inventory returns the HTTP handler of GET /snapshots?volume=V.
func (s *Service) Inventory() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /snapshots", func(w http.ResponseWriter, r *http.Request) {
		vol := r.URL.Query().Get("volume")
		s.mu.Lock()
		inv := app.Inventory{NowMs: s.now(), Snapshots: []app.Snapshot{}}
		for _, sn := range s.snapshots {
			if vol == "" || sn.Volume == vol {
				inv.Snapshots = append(inv.Snapshots, sn)
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(inv)
	})
	return mux
}

// deleteSnapshot is the delete_snapshot tool.
func (s *Service) deleteSnapshot(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		SnapshotID string `json:"snapshot_id"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.SnapshotID == "" {
		return toolError("arguments: want {\"snapshot_id\": ID}"), nil
	}
	key, _ := req.Params.Meta[app.MetaKey].(string)
	trace, _ := req.Params.Meta["traceId"].(string)
	actor := ""
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		actor = p.ClientInfo.Name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.replies[key]; ok && key != "" {
		return r, nil
	}
	i := slices.IndexFunc(s.snapshots, func(sn app.Snapshot) bool { return sn.ID == in.SnapshotID })
	if i < 0 {
		return toolError("no snapshot " + in.SnapshotID), nil
	}
	sn := &s.snapshots[i]
	switch sn.State {
	case app.StateAvailable:
		sn.State = app.StateBinned
	case app.StateBinned:
		sn.State = app.StatePurged
	default:
		return toolError("snapshot " + in.SnapshotID + " is already purged"), nil
	}
	receipt := fmt.Sprintf("del-%d", len(s.deletions)+1)
	sn.Deletion = receipt
	s.deletions = append(s.deletions, model.LedgerEntry{Tool: app.Tool, Key: key, ActionRef: sn.ID, Actor: actor,
		Subject: sn.Volume, Tenant: s.tenant, Purpose: Purpose, Trace: trace, ReceiptID: receipt, At: model.Millis(s.now())})
	out := map[string]any{"snapshot_id": sn.ID, "receipt": receipt, "state": sn.State}
	b, _ := json.Marshal(out)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: out}
	if key != "" {
		s.replies[key] = res
	}
	return res, nil
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// Ledger returns the service's deletions, oldest first: the provider's
// own store, which the oracle reads.
func (s *Service) Ledger() []model.LedgerEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deletions)
}

// Snapshot returns the service's current record of snapshot id.
func (s *Service) Snapshot(id string) (app.Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.snapshots, func(sn app.Snapshot) bool { return sn.ID == id })
	if i < 0 {
		return app.Snapshot{}, false
	}
	return s.snapshots[i], true
}
