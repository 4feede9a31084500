package serve

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// latencyBuckets are the upper bounds, in seconds, of the request
// latency histogram.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// routes are the paths metrics are kept for; any other is "other".
var routes = []string{"/v1/select", "/v1/observe", "/v1/weights", "/healthz", "/metrics"}

// metrics are the server's counters, written in the Prometheus text
// exposition format (version 0.0.4).
type metrics struct {
	mu        sync.Mutex
	requests  map[[2]string]uint64 // (path, code) -> count
	hist      map[string]*histogram
	batches   uint64
	batchObs  uint64
	batchErrs uint64
	alarms    uint64
	rollbacks uint64
	explored  uint64
	exploited uint64
	replays   uint64 // observations answered from the idempotency window
}

type histogram struct {
	counts []uint64 // per bucket (not cumulative), then +Inf
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, hist: map[string]*histogram{}}
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// wrap counts every request by path and status and times it.
func (m *metrics) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		d := time.Since(start).Seconds()
		path := r.URL.Path
		if !slices.Contains(routes, path) {
			path = "other"
		}
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		m.requests[[2]string{path, strconv.Itoa(code)}]++
		hg := m.hist[path]
		if hg == nil {
			hg = &histogram{counts: make([]uint64, len(latencyBuckets)+1)}
			m.hist[path] = hg
		}
		i, _ := slices.BinarySearch(latencyBuckets, d)
		hg.counts[i]++
		hg.sum += d
		hg.n++
	})
}

func (m *metrics) batch(n int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches++
	if err != nil {
		m.batchErrs++
		return
	}
	m.batchObs += uint64(n)
}

func (m *metrics) alarm(rolledBack bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.alarms++
	if rolledBack {
		m.rollbacks++
	}
}

// replayed counts an observation answered from the idempotency window.
func (m *metrics) replayed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replays++
}

func (m *metrics) selected(explored bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if explored {
		m.explored++
	} else {
		m.exploited++
	}
}

// write prints every metric, in a fixed order.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP evolve_http_requests_total HTTP requests by path and status code.")
	fmt.Fprintln(w, "# TYPE evolve_http_requests_total counter")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		fmt.Fprintf(w, "evolve_http_requests_total{path=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	fmt.Fprintln(w, "# HELP evolve_http_request_duration_seconds HTTP request latency by path, handler time.")
	fmt.Fprintln(w, "# TYPE evolve_http_request_duration_seconds histogram")
	paths := make([]string, 0, len(m.hist))
	for p := range m.hist {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		hg := m.hist[p]
		var cum uint64
		for i, le := range latencyBuckets {
			cum += hg.counts[i]
			fmt.Fprintf(w, "evolve_http_request_duration_seconds_bucket{path=%q,le=%q} %d\n", p, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += hg.counts[len(latencyBuckets)]
		fmt.Fprintf(w, "evolve_http_request_duration_seconds_bucket{path=%q,le=\"+Inf\"} %d\n", p, cum)
		fmt.Fprintf(w, "evolve_http_request_duration_seconds_sum{path=%q} %g\n", p, hg.sum)
		fmt.Fprintf(w, "evolve_http_request_duration_seconds_count{path=%q} %d\n", p, hg.n)
	}
	counter := func(name, help string, v uint64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	counter("evolve_observations_total", "Observations written to the store.", m.batchObs)
	counter("evolve_observe_batches_total", "Store writes of observation batches (group commits), failed ones included.", m.batches)
	counter("evolve_observe_batch_errors_total", "Failed store writes of observation batches.", m.batchErrs)
	counter("evolve_alarms_total", "Rollback detector alarms.", m.alarms)
	counter("evolve_rollbacks_total", "Automatic rollbacks of a branch HEAD.", m.rollbacks)
	fmt.Fprintln(w, "# HELP evolve_selections_total Selections by kind (explore: at random, exploit: the best score).")
	fmt.Fprintln(w, "# TYPE evolve_selections_total counter")
	fmt.Fprintf(w, "evolve_selections_total{kind=\"explore\"} %d\n", m.explored)
	fmt.Fprintf(w, "evolve_selections_total{kind=\"exploit\"} %d\n", m.exploited)
	fmt.Fprintf(w, "# HELP evolve_observations_replayed_total Observations whose request_id was seen before, answered without recording them again.\n")
	fmt.Fprintf(w, "# TYPE evolve_observations_replayed_total counter\n")
	fmt.Fprintf(w, "evolve_observations_replayed_total %d\n", m.replays)
}
