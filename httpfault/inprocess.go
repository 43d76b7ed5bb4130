package httpfault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// InProcess returns an http.RoundTripper that serves each request by
// calling handler in process, with no socket: inside a testing/synctest
// bubble a loopback socket is not durably blocking, a call into a handler
// is. The handler runs on a goroutine of the caller's bubble and sees a
// server-side request (RequestURI set, RemoteAddr "127.0.0.1:0", a context
// that ends with the client's or when the body is closed). The answer is
// buffered until the handler returns, or streams from its first Flush
// (server-sent events). A panicking handler fails the round trip (or the
// streamed body) with an error naming the panic; a nil handler is an error.
func InProcess(handler http.Handler) http.RoundTripper { return inProcess{h: handler} }

type inProcess struct{ h http.Handler }

// RoundTrip implements http.RoundTripper.
func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.h == nil {
		closeBody(req)
		return nil, errors.New("httpfault: InProcess: nil handler")
	}
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("httpfault: InProcess: request without a URL")
	}
	ctx, cancel := context.WithCancel(req.Context())
	sr := req.Clone(ctx)
	sr.RequestURI = req.URL.RequestURI()
	sr.RemoteAddr = "127.0.0.1:0"
	if sr.Host == "" {
		sr.Host = req.URL.Host
	}
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	w := &inProcessWriter{header: http.Header{}, ready: make(chan struct{}), req: req, cancel: cancel}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				w.end(fmt.Errorf("httpfault: InProcess: the handler panicked: %v", v))
				return
			}
			w.end(nil)
		}()
		defer closeBody(req)
		p.h.ServeHTTP(w, sr)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		cancel()
		return nil, req.Context().Err()
	}
	if w.err != nil {
		cancel()
		return nil, w.err
	}
	return w.resp, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// inProcessWriter is the handler's http.ResponseWriter and http.Flusher.
type inProcessWriter struct {
	mu      sync.Mutex
	header  http.Header
	status  int
	buf     bytes.Buffer
	pw      *io.PipeWriter // set from the first Flush on
	ready   chan struct{}  // closed once resp (or err) is set
	sent    bool
	resp    *http.Response
	err     error
	req     *http.Request
	cancel  context.CancelFunc
	snapHdr http.Header
}

func (w *inProcessWriter) Header() http.Header { return w.header }

func (w *inProcessWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeader(code)
}

// writeHeader records the status and the header, once; w.mu is held.
func (w *inProcessWriter) writeHeader(code int) {
	if w.status != 0 || code < 200 {
		return
	}
	w.status = code
	w.snapHdr = w.header.Clone()
}

func (w *inProcessWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if w.status == 0 {
		if w.header.Get("Content-Type") == "" && len(b) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(b))
		}
		w.writeHeader(http.StatusOK)
	}
	if w.pw == nil {
		defer w.mu.Unlock()
		return w.buf.Write(b)
	}
	pw := w.pw
	w.mu.Unlock()
	return pw.Write(b)
}

// Flush starts streaming: RoundTrip returns the answer, whose body is
// what was written so far followed by every later write.
func (w *inProcessWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		return
	}
	w.writeHeader(http.StatusOK)
	pr, pw := io.Pipe()
	w.pw = pw
	pending := bytes.NewReader(bytes.Clone(w.buf.Bytes()))
	w.buf.Reset()
	w.respond(&streamBody{Reader: io.MultiReader(pending, pr), pr: pr, cancel: w.cancel}, -1)
}

// end is called when the handler returned (err nil) or panicked.
func (w *inProcessWriter) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		if err != nil {
			w.pw.CloseWithError(err)
		} else {
			w.pw.Close()
		}
		return
	}
	if err != nil {
		w.err, w.sent = err, true
		close(w.ready)
		return
	}
	w.writeHeader(http.StatusOK)
	body := bytes.Clone(w.buf.Bytes())
	w.respond(&streamBody{Reader: bytes.NewReader(body), cancel: w.cancel}, int64(len(body)))
}

// respond sets the answer and releases RoundTrip; w.mu is held.
func (w *inProcessWriter) respond(body io.ReadCloser, length int64) {
	h := w.snapHdr
	if length >= 0 && h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	w.resp = &http.Response{Status: strconv.Itoa(w.status) + " " + http.StatusText(w.status), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Body: body, ContentLength: length, Request: w.req}
	w.sent = true
	close(w.ready)
}

// streamBody is an in-process answer's body; closing it ends the
// handler's context (and its pipe, when streaming).
type streamBody struct {
	io.Reader
	pr     *io.PipeReader
	cancel context.CancelFunc
}

func (b *streamBody) Close() error {
	if b.pr != nil {
		b.pr.Close()
	}
	b.cancel()
	return nil
}
