// Package serve puts online selection over a prompt store behind an
// HTTP JSON API (evolve serve).
//
// Endpoints (bodies are JSON objects of at most Config.MaxBody bytes,
// decoded by DecodeStrict: invalid UTF-8, duplicate keys, keys in
// another case, unknown keys, null values and trailing data are 400s
// naming the field):
//
//	POST /v1/select   {"prompt": SLUG, "branch"?: B, "branches"?: [B...], "versions"?: ["vX.Y.Z"...],
//	                   "signals"?: {NAME: VALUE}, "request_id"?: ID}
//	                  -> the chosen version, its rendered system text and the scores behind the choice
//	POST /v1/observe  {"prompt": SLUG, "version": "vX.Y.Z", "sentiment": S, "corrections"?: C,
//	                   "success"?: "success"|"partial"|"failure"|"unknown", "request_id"?: ID}
//	                  -> the observation's score, the version's new weight, an alarm if it rolled back
//	GET  /v1/weights?prompt=SLUG   every version's weight, observations, mean score, alarm, exclusion
//	GET  /healthz                  {"status": "ok"}
//	GET  /metrics                  Prometheus text format: requests by path and status, latency histograms,
//	                               observations, batches, alarms
//
// A request's signals must be declared in Config.Signals, the store's
// table (online.StoreSignals reads STORE/signals.yaml; the design's
// table, online.DefaultSignals, without one).
//
// A selection's candidates are the HEADs of the prompt's branches (or of
// the branches named), or the versions named; versions an automatic
// rollback excluded (store.Graph.AutoRolledBack) are left out. Each is
// an online.Variant with its weight from the store and the
// context_weights of its metadata, and online.EpsilonGreedy chooses,
// reproducibly from (Config.Seed, request number): a request_id that is
// a decimal number is the request number, any other is hashed to one
// (FNV-1a, 64 bits), and without one the server numbers requests from 1.
//
// Observations are queued and written in batches (group commit): one
// goroutine takes every observation waiting, up to Config.MaxBatch,
// and records them with one store.Store.Observe (one lock, one log
// append, one checkpoint), then answers each request. A request is
// answered only after its observation is durable, so nothing answered is
// ever lost, and Close writes every observation queued before it returns.
//
// Authentication: with Config.Token set, every request but GET /healthz
// needs "Authorization: Bearer TOKEN" (the scheme in any case, RFC
// 6750), compared in constant time; Config.PublicRead opens the
// read-only endpoints (select, weights, metrics) and guards observe only.
// New refuses a token CheckToken calls weak.
//
// Other origins: every request passes package httpguard first, with or
// without a token. A Host header naming a host the server does not
// answer to (not an IP address, localhost, the machine's name, the host
// of Config.Addr or one of Config.AllowedHosts) is 403, so that a web
// page cannot rebind its own name to a loopback server (DNS rebinding);
// a POST from another origin (Sec-Fetch-Site or Origin) is 403, and a
// POST whose Content-Type is not application/json is 415, so that no
// page can post observations, not even as a no-cors text/plain request.
//
// Idempotency: an observation's request_id is its idempotency key. The
// server remembers the request ids of the latest Config.IdempotencyWindow
// observations (DefaultIdempotencyWindow; read back from the store's
// observation log by New, so a restart keeps them). An observation
// repeating a remembered id with the same prompt, version, sentiment,
// corrections and success is not recorded again: it gets the first
// one's answer, with the header "Idempotent-Replayed: true" (a repeat
// that arrives while the first is being written waits for it). The same
// id with a different observation is 409. Observations without a
// request_id are always recorded. Another process writing the same
// store's log (a second server) is not seen until a restart.
//
// Server.Serve runs the HTTP server with Timeouts (header, whole
// request, answer, idle) and a shutdown bounded by Timeouts.Shutdown.
//
// Errors are {"error": MESSAGE, "field": FIELD}: 400 for bad input
// (naming the field), 401 without the bearer token (Config.Token), 403
// for a Host the server does not answer to or a POST from another
// origin, 404
// for an unknown prompt or version, 405 for a wrong method, 408 for a
// body not read within the read timeout, 409 when every candidate is
// excluded or a request_id is reused for another observation, 413 for a
// body over the limit, 415 for a POST that is not application/json, 503
// while shutting down, 500 for a store failure.
package serve
