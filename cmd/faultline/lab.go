package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/reference/lab"
)

func init() { commands = append(commands, newLabCmd) }

// loopbackHost reports whether host (from an address's host part) names
// this machine's loopback interface: localhost or a loopback IP.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackOnly refuses requests whose Host header does not name the
// loopback interface, so a page of another site cannot reach the lab
// through a name that resolves to 127.0.0.1 (DNS rebinding).
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if !loopbackHost(host) {
			http.Error(w, fmt.Sprintf("host %q is not a loopback name; the lab answers only localhost, 127.0.0.1 or [::1]", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// shutdownGrace bounds the wait for requests in flight after an interrupt.
const shutdownGrace = 5 * time.Second

func newLabCmd() *cobra.Command {
	var addr string
	var allowRemote bool
	c := &cobra.Command{
		Use:   "lab",
		Short: "Serve the interactive assay as a local web page",
		Long: fmt.Sprintf(`Serve the lab: the paper's interactive assay as one local web page driven by the
real model. Toggle the seven controls or pick a profile, choose a fault family
(all, one domain or one mode), trials and seed, run the assay and read the six
meters, the per-domain table and charts, the release assessment, the run's
region of the release envelope with its reasons (as "faultline audit" places
it) and the command line that reproduces the run; replay a pasted or uploaded
schedule in the timeline viewer; read the coverage of the session's runs
(heatmaps, unvisited keys with reasons). The page is embedded in the binary
and loads nothing from any other host.

The lab listens on the loopback interface only, unless --allow-remote is given:
it has no authentication. Runs are bounded: at most %d trials, a request body
of at most %d bytes, %s per run. Stop it with an interrupt (Ctrl-C).

Exit codes: 0 stopped by an interrupt; 2 bad input (an --addr that is not
HOST:PORT, not a loopback address without --allow-remote, or that cannot be
listened on); 4 the server failed.`, lab.MaxTrials, lab.MaxBodyBytes, lab.RunTimeout),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return badInput("--addr %q: %v (want HOST:PORT, e.g. 127.0.0.1:8188)", addr, err)
			}
			if !allowRemote && !loopbackHost(host) {
				return badInput("--addr %q is not a loopback address; the lab has no authentication, so it serves only this machine (localhost, 127.0.0.1, [::1]) unless --allow-remote is given", addr)
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return badInput("--addr: %v", err)
			}
			l := lab.New(lab.Options{})
			var h http.Handler = l
			if !allowRemote {
				h = loopbackOnly(h)
			}
			srv := l.HTTPServer(h)
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			fmt.Fprintf(c.OutOrStdout(), "faultline lab: serving http://%s/ (interrupt to stop)\n", ln.Addr())
			select {
			case err := <-served:
				return err
			case <-ctx.Done():
			}
			sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer cancel()
			if err := srv.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
				srv.Close()
				fmt.Fprintf(c.OutOrStdout(), "faultline lab: requests still running after %s were cut off\n", shutdownGrace)
			} else if err != nil {
				return err
			}
			if err := <-served; !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), "faultline lab: stopped")
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8188", "address to listen on (HOST:PORT); a loopback address unless --allow-remote")
	c.Flags().BoolVar(&allowRemote, "allow-remote", false, "allow a non-loopback --addr (the lab has no authentication)")
	return c
}
