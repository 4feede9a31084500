package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Timeouts bound how long a client may hold a connection, and how long
// a shutdown waits for the requests in flight. A zero field means no
// limit (net/http's meaning), except in DefaultTimeouts.
type Timeouts struct {
	// ReadHeader is the most time to read a request's headers
	// (http.Server.ReadHeaderTimeout).
	ReadHeader time.Duration
	// Read is the most time to read a whole request, headers and body
	// (http.Server.ReadTimeout): a client that stalls its body gets 408
	// and its connection closed.
	Read time.Duration
	// Write is the most time from the end of a request's headers to the
	// end of its answer (http.Server.WriteTimeout); it bounds an observe
	// waiting for its group commit.
	Write time.Duration
	// Idle is the most time a keep-alive connection waits for its next
	// request (http.Server.IdleTimeout).
	Idle time.Duration
	// Shutdown is the most time a shutdown waits for the requests in
	// flight before closing their connections.
	Shutdown time.Duration
}

// DefaultTimeouts returns the timeouts of evolve serve: 10 s to read the
// headers, 30 s the whole request, 60 s to answer, 60 s idle, and a 10 s
// shutdown.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 60 * time.Second, Shutdown: 10 * time.Second}
}

// Validate returns an error naming the first negative field as evolve
// serve's flag does ("shutdown-timeout must be >= 0, got -1s").
func (t Timeouts) Validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"read-header-timeout", t.ReadHeader}, {"read-timeout", t.Read}, {"write-timeout", t.Write}, {"idle-timeout", t.Idle}, {"shutdown-timeout", t.Shutdown}} {
		if f.d < 0 {
			return fmt.Errorf("%s must be >= 0, got %v", f.name, f.d)
		}
	}
	return nil
}

// Serve serves s's Handler on ln until ctx is done, then shuts down in
// bounded time: it stops accepting connections, waits up to t.Shutdown
// for the requests in flight (forever if 0), closes the connections of
// those still running (a client stalled in its body, say), and Closes s,
// which writes every observation queued. No observation that was
// answered is lost: an observe is answered only once it is on disk, and
// one whose connection is closed first was either recorded before its
// answer was lost (a retry with the same request_id gets that answer) or
// never queued.
//
// Serve returns nil after a shutdown, forced or not (a line on log says
// how many connections were closed); otherwise the listener's error,
// after Closing s. log may be nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener, t Timeouts, log io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	if log == nil {
		log = io.Discard
	}
	sctx, cancel := context.Background(), func() {}
	if t.Shutdown > 0 {
		sctx, cancel = context.WithTimeout(sctx, t.Shutdown)
	}
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintf(log, "evolve serve: requests still in flight after the %v shutdown timeout: closing their connections (nothing unanswered was recorded as answered)\n", t.Shutdown)
		hs.Close()
	}
	s.Close()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
