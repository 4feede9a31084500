// Package process runs environments and agents that are separate programs
// speaking the process protocol of docs/protocol.md: newline-delimited JSON
// requests on the program's stdin, one response line per request on its
// stdout, free text on its stderr.
//
// It registers the environment "process" with package envs. A Config names
// the command; New starts it once for the handshake (hello), checks the
// declarations it returns (causes, metrics, parameter schema, remedies) and
// keeps them as the environment's envs.Info. Each Player (one per worker)
// then runs its own process, reused across episodes:
//
//  1. start: the command in its own process group (Setpgid), stdin and
//     stdout as pipes, stderr appended to stderr_dir/process-<worker>.log
//     and kept as a tail (the last 20 lines, at most 4 KiB) for errors;
//     with max_memory_mb the address space is limited (RLIMIT_AS);
//  2. hello: the handshake, which must declare what the first process
//     declared;
//  3. per episode, in episode mode one play request answered by an
//     outcome; in step mode reset on the environment process and begin on
//     the agent process, then act (agent) and step (environment) until the
//     environment says done, its last step carrying the outcome;
//  4. on a crash, a timeout (message_timeout per request, episode_timeout
//     per episode), a malformed or non-protocol line, or an exceeded memory
//     limit, Play returns an *Error with the process's stderr tail, kills
//     the process group (first writing why, with the request, to the
//     stderr log) and starts a fresh process for the next episode; a
//     process that answers a request with an error message is kept;
//  5. Close sends close, waits briefly, and kills the process group: no
//     child outlives its player.
//
// Check runs the conformance check of `evolve env check`: the handshake,
// the same seeds played twice in two processes in opposite orders, byte
// for byte equal outcomes, conforming messages, and the time per step and
// per episode.
package process
