// Package llm calls an OpenAI-compatible chat completions endpoint
// (POST {base_url}/v1/chat/completions) for evolve's LLM agent, with
// bounded concurrency, retries with backoff, and an on-disk response cache
// that lets a rerun replay every reply with no calls.
//
// A [Client] is built from a [Config] (the yaml block an experiment
// config holds) and [Options] (the cache, its [Mode], and the clock and
// random source of its waits). [Client.Complete] does, in order:
//
//  1. builds the [Request] (model, messages, temperature, seed,
//     max_tokens) and its content address, [Request.Hash];
//  2. with a cache (ModeRead or ModeReadWrite) looks the hash up; a hit is
//     the reply (Cached, Latency 0, Requests 0); in ModeRead a miss is an
//     error wrapping [ErrNotCached] and nothing is sent;
//  3. waits for one of Config.Concurrency slots and posts the request,
//     with "Authorization: Bearer KEY" if Config.APIKeyEnv names a key,
//     each attempt bounded by Config.Timeout;
//  4. on 408, 429, 5xx, a 200 with an "error" object and no choices
//     ([ErrServerFault], counted in Stats.ServerErrors), a timeout or a
//     network error, frees its slot, waits as Retry-After says
//     (delay-seconds or an HTTP date, at most [MaxRetryAfter]) or else a
//     full-jitter backoff (its random source seeded per process), and
//     retries until Config.RetryFor has passed since the first attempt
//     (or Config.MaxRetries retries); while [DownAfter] attempts in a row
//     have failed, one call probes and the others wait
//     ([Client.Waiting]);
//  5. reads choices[0].message.content (a string, or an array of text
//     parts joined by newlines; when it is empty, the first tool call's
//     arguments), finish_reason and usage; a 200 with no usable reply
//     ([ErrUnusableReply]: malformed, no choices, empty or null content,
//     cut by max_tokens) is sent again Config.ReplyRetries times, then
//     returned ([UnusableKind] names it, [UnusableSeen] what the body
//     held instead: reasoning_content, tool calls without arguments, a
//     refusal); with a logger ([Client.SetLogger]) the first body of
//     each kind is logged, its first [LogBodyBytes];
//  6. in ModeReadWrite stores the reply, then returns it.
//
// [Client.CompleteTools] offers tools (function calling): the request
// also carries "tools" and "tool_choice": "required", which its hash
// covers (a request without tools keeps the hash it always had).
//
// Cancelling the context aborts the request in flight at once (the
// connection is closed) and any wait. [Client.Stats] counts calls, HTTP
// requests, retries, cache hits and misses, errors and tokens.
//
// # The API key
//
// The key lives only in the environment variable Config.APIKeyEnv names,
// read once by [New] (through Options.LookupEnv), and in the
// Authorization header. It is not part of a Request, its hash, a cache
// entry or any error: a server's error body that quotes it is redacted in
// [StatusError.Body]. In ModeRead the variable is not read at all, so an
// offline replay needs no key.
//
// # Cache
//
// A cache directory holds one file per request, named by Request.Hash
// (64 lower-case hex digits) under a subdirectory named by its first two:
//
//	DIR/7e/7e12d8f6…bfb34.json
//
// The hash covers the model name, every message's role and content in
// order, the temperature, the seed (or its absence) and max_tokens: every
// field of the request body, so two requests that could get different
// replies from one server never share an entry. It leaves out the API key,
// and also the base URL: a cache filled against http://gpu-box:8000 is
// replayed by a run pointed at http://127.0.0.1:8000, or at nothing, in
// ModeRead. Two servers that serve different weights under the same model
// name therefore need different cache directories.
//
// An entry is one line of JSON, ending in a newline, gzip-compressed
// (RFC 1952, best compression, empty header; an uncompressed entry is
// read too), with its fields in this order (shown wrapped;
// testdata/entry.json is an example, uncompressed):
//
//	{"format":1,
//	 "request":{"model":"…","messages":[{"role":"system","content":"…"},…],
//	            "temperature":0.7,"seed":42,"max_tokens":64},
//	 "reply_sha256":"<hex SHA-256 of the reply value's bytes>",
//	 "reply":{"content":"ACTION: eat","finish_reason":"stop",
//	          "prompt_tokens":31,"completion_tokens":3}}
//
// format is [CacheFormat]; request is the request body exactly as sent
// ("seed" and "max_tokens" omitted when not sent; no HTML escaping, so a
// prompt's XML tags stay readable); reply_sha256 is the SHA-256 of the
// reply value's bytes as they appear in the file; finish_reason is
// omitted when the server sent none. The same request and reply give the
// same bytes in every process.
//
// [Cache.Get] decodes an entry strictly: unknown fields, trailing data, a
// format other than CacheFormat, a stored request other than the one
// asked for, a checksum that does not match, an empty content or a
// negative token count make it corrupt. A corrupt entry is a miss: Get
// removes it (unless a writer has replaced it meanwhile) and counts it in
// [CacheStats].Corrupt, and in ModeReadWrite the reply is fetched again
// and stored.
//
// [Cache.Put] writes the entry to a new temporary file
// (".HASH.json.tmp-RANDOM", created with O_EXCL) in the entry's
// subdirectory and renames it over the entry's path. rename(2) within a
// directory is atomic, so readers in any process see no entry or a whole
// one; concurrent writers of one request each rename a whole entry and
// the last one wins. A writer killed before its rename leaves only its
// temporary file, which no reader opens and [Cache.Clean] removes once it
// is old. Put does not fsync, as evolve/cache does not: a kill -9 loses
// nothing renamed; a power loss can leave a truncated entry, which fails
// its checksum and is fetched again. Each Put's rename and each removal
// of a corrupt entry is a write point of evolve/internal/atomicfile's
// fault hook.
//
// The design is evolve/cache's (the episode outcome cache), whose code is
// bound to envs.Outcome; this package has its own copy of the layout
// rather than a shared generic store.
//
// # Concurrency and cost
//
// A Client is safe for concurrent use; Config.Concurrency (default 64)
// bounds the HTTP requests in flight, independently of evolve's CPU
// workers, and a retry's wait holds no slot. Against a server in another
// process answering after 50 ms, 128 callers on one client of
// concurrency 64 keep 61 to 62 requests in flight (at most 64) and
// complete about 1,200 requests/s on a 2-core VM, using 70 to 77 µs of
// the client's CPU per request (BenchmarkThroughput). A cache hit costs
// about 33 µs (BenchmarkCompleteCached).
package llm
