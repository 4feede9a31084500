package experiment

import (
	"context"
	"time"
)

// watchEvery is how often a run checks whether its model endpoint is
// down, and how often it says so while it is.
const watchEvery = 5 * time.Second

// watchEndpoint logs, every watchEvery while the language-model agent's
// endpoint is down (llm.Client.Waiting), a warning "waiting for the
// endpoint" with how long it has been down and the last error, on
// Options.Logger; the run's progress log shows it as a line. It returns
// the function that stops it. It does nothing without a logger or a
// language-model agent.
func (r *run) watchEndpoint(ctx context.Context) (stop func()) {
	if r.llm == nil || r.opt.Logger == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if d, last, ok := r.llm.Waiting(); ok {
				r.opt.Logger.Warn("waiting for the endpoint", "for", d.Round(time.Second).String(), "last_error", last,
					"retry_for", r.cfg.Agent.LLM.RetryFor.String())
			}
		}
	}()
	return func() { cancel(); <-done }
}
