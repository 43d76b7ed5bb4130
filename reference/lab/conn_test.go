package lab

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// closeBound is how long a test waits for the server to close a
// connection whose timeout (tens of milliseconds) has passed; generous, so
// a loaded machine does not fail the test, and never reached when the
// server closes the connection.
const closeBound = 20 * time.Second

// TestHTTPServerBounds: the server HTTPServer returns sets every bound,
// and its write timeout leaves room for a run that uses its whole time
// bound.
func TestHTTPServerBounds(t *testing.T) {
	srv := New(Options{}).HTTPServer(nil)
	if srv.ReadHeaderTimeout != 10*time.Second || srv.ReadTimeout != 15*time.Second || srv.IdleTimeout != 30*time.Second ||
		srv.WriteTimeout != 45*time.Second || srv.MaxHeaderBytes != 64<<10 {
		t.Errorf("bounds: header %s, read %s, idle %s, write %s, header bytes %d", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout, srv.WriteTimeout, srv.MaxHeaderBytes)
	}
	if _, ok := srv.Handler.(*Server); !ok {
		t.Errorf("handler %T, want the lab", srv.Handler)
	}
	if w := New(Options{Timeout: 2 * time.Minute}).HTTPServer(nil).WriteTimeout; w != 15*time.Second+2*time.Minute+10*time.Second {
		t.Errorf("write timeout with a 2m run bound: %s", w)
	}
	wrapped := &hostCheck{}
	if h := New(Options{}).HTTPServer(wrapped).Handler; h != http.Handler(wrapped) {
		t.Errorf("handler %T, want the one given", h)
	}
}

// hostCheck stands for a handler that wraps the lab.
type hostCheck struct{ http.Handler }

// serve starts s's HTTPServer on a loopback port with short connection
// timeouts and returns its address. The header bound leaves a loaded
// machine time to deliver headers written at once (at 50 ms a test was
// answered EOF under a load average of 40).
func serve(t *testing.T, s *Server) string {
	t.Helper()
	s.conn.readHeader, s.conn.read, s.conn.idle = 500*time.Millisecond, time.Second, 50*time.Millisecond
	return serveAsConfigured(t, s)
}

// serveAsConfigured serves s with the timeouts it has.
func serveAsConfigured(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := s.HTTPServer(nil)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// dial connects to addr with a read deadline of closeBound.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(closeBound))
	return c, bufio.NewReader(c)
}

// closed requires the server to close the connection: the next read ends
// with EOF (or a reset), not with the test's deadline.
func closed(t *testing.T, r *bufio.Reader, what string) {
	t.Helper()
	rest, err := io.ReadAll(r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: the connection was still open after %s", what, closeBound)
	}
	if len(rest) > 0 {
		t.Fatalf("%s: unexpected bytes before the close: %q", what, rest)
	}
}

// TestIdleConnectionClosed: a keep-alive connection that sends nothing
// after its answer is closed once the idle timeout passes.
func TestIdleConnectionClosed(t *testing.T) {
	addr := serve(t, New(Options{}))
	c, r := dial(t, addr)
	io.WriteString(c, "GET /api/coverage HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("GET /api/coverage: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	closed(t, r, "idle keep-alive connection")
}

// TestSlowBodyRefused: a body that does not arrive within the read
// timeout is answered 408, the run never starts, and the connection is
// closed; headers that never end get the connection closed.
func TestSlowBodyRefused(t *testing.T) {
	s := New(Options{})
	addr := serve(t, s)
	c, r := dial(t, addr)
	io.WriteString(c, "POST /api/assay HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"trials\":")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ans struct{ Error string }
	err = json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusRequestTimeout || ans.Error != "request body not received within the read bound of 1s" {
		t.Fatalf("slow body: %d %q %v", resp.StatusCode, ans.Error, err)
	}
	closed(t, r, "slow body")
	if n := s.coverageReport().Summary.Runs; n != 0 {
		t.Errorf("the session counts %d runs after a slow body", n)
	}

	c, r = dial(t, addr)
	io.WriteString(c, "POST /api/assay HTTP/1.1\r\nHost: "+addr+"\r\n")
	// whatever the server says before it closes
	if _, err := io.ReadAll(r); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("slow headers: the connection was still open after %s", closeBound)
	}
}

// TestHeaderBound: headers over MaxHeaderBytes are refused 431.
func TestHeaderBound(t *testing.T) {
	// The lab's own timeouts: a shortened header timeout could close the
	// connection before 80 KiB arrive on a loaded machine.
	addr := serveAsConfigured(t, New(Options{}))
	c, r := dial(t, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+addr+"\r\nX-Big: "+strings.Repeat("a", 80<<10)+"\r\n\r\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("80 KiB of headers: %d, want 431", resp.StatusCode)
	}
}
