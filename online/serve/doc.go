// Package serve puts online selection over a prompt store behind an
// HTTP JSON API (evolve serve).
//
// Endpoints (bodies are JSON objects of at most Config.MaxBody bytes;
// unknown fields are errors):
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
// Errors are {"error": MESSAGE, "field": FIELD}: 400 for bad input
// (naming the field), 401 without the bearer token (Config.Token) on a
// write, 404 for an unknown prompt or version, 405 for a wrong method,
// 409 when every candidate is excluded, 413 for a body over the limit,
// 503 while shutting down, 500 for a store failure.
package serve
