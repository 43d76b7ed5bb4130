package httpfault_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/httpfault"
)

// TestInProcessBuffered: a handler's answer, header, status and body, and
// the server-side request it sees.
func TestInProcessBuffered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen string
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			seen = r.Method + " " + r.RequestURI + " " + r.Host + " " + r.RemoteAddr + " " + string(b)
			w.Header().Set("X-Shard", "7")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, "made")
		})
		c := &http.Client{Transport: httpfault.InProcess(h)}
		resp, err := c.Post("http://127.0.0.1:9/items?x=1", "text/plain", strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 || resp.Header.Get("X-Shard") != "7" || string(b) != "made" || resp.ContentLength != 4 ||
			seen != "POST /items?x=1 127.0.0.1:9 127.0.0.1:0 body" {
			t.Fatalf("status %d, header %v, body %q, length %d, seen %q", resp.StatusCode, resp.Header, b, resp.ContentLength, seen)
		}
	})
}

// TestInProcessStream: after a Flush the answer streams; closing the body
// ends the handler's context. Inside the bubble the handler's wait is
// durably blocking, so the test's own sleep passes at no cost.
func TestInProcessStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan string, 1)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: one\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(time.Minute)
			io.WriteString(w, "data: two\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			done <- r.Context().Err().Error()
		})
		c := &http.Client{Transport: httpfault.InProcess(h)}
		start := time.Now()
		resp, err := c.Get("http://localhost/events")
		if err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(resp.Body)
		var lines []string
		for len(lines) < 4 {
			l, err := rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		resp.Body.Close()
		if got := <-done; got != context.Canceled.Error() || strings.Join(lines, "|") != "data: one||data: two|" ||
			time.Since(start) != time.Minute || resp.ContentLength != -1 {
			t.Fatalf("handler ended with %q, lines %q, elapsed %v, length %d", got, lines, time.Since(start), resp.ContentLength)
		}
	})
}

// TestInProcessErrors: a panicking handler and a nil handler fail the
// round trip with an error naming them.
func TestInProcessErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &http.Client{Transport: httpfault.InProcess(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))}
		if _, err := c.Get("http://localhost/"); err == nil || !strings.Contains(err.Error(), "httpfault: InProcess: the handler panicked: boom") {
			t.Errorf("panic: %v", err)
		}
		c = &http.Client{Transport: httpfault.InProcess(nil)}
		if _, err := c.Get("http://localhost/"); err == nil || !strings.Contains(err.Error(), "httpfault: InProcess: nil handler") {
			t.Errorf("nil: %v", err)
		}
	})
}
