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
//  1. start: the command in its own process group (Setpgid) and, on
//     Linux where one can be created, its own cgroup v2 (else marked by
//     MarkerVar in its environment, which descendants inherit; macOS has
//     the process group only, and Windows refuses process environments:
//     see platform.go), stdin and stdout as
//     pipes, stderr appended to stderr_dir/process-<worker>.log and kept
//     as a tail (the last 20 lines, at most 4 KiB, of the current
//     episode) for errors; with max_memory_mb the cgroup's memory.max, or
//     else RLIMIT_DATA, limits its memory (Linux only: elsewhere
//     Config.Validate refuses it); with pin_cpu the worker's
//     processes, and the thread that plays them, run on one CPU (see
//     Config.PinCPU);
//  2. hello: the handshake, which must declare what the first process
//     declared;
//  3. per episode, in episode mode one play request answered by an
//     outcome; in step mode reset on the environment process and begin on
//     the agent process, then act (agent) and step (environment) until the
//     environment says done, its last step carrying the outcome; over
//     the direct channel (Config.Direct) begin on the agent process and
//     one run request on the environment process, which was started with
//     the agent's stdin and stdout as its fds 3 and 4 and exchanges the
//     act requests and actions with the agent itself, answering with the
//     outcome and the number of acts;
//  4. on a crash, a timeout (message_timeout per request, episode_timeout
//     per episode), a malformed or non-protocol line, or an exceeded memory
//     limit, Play returns an *Error with the process's stderr tail, kills
//     the process and every descendant (first writing why, with the
//     request, to the stderr log) and starts a fresh process for the next
//     episode; a process that answers a request with an error message is
//     kept. The process's exit is watched directly (on Linux, waitid with
//     WNOWAIT; elsewhere when it is reaped):
//     it kills the descendants and wakes a read of stdout, so a crash is
//     reported as an exit even when a grandchild holds stdout open;
//  5. Close sends close, waits briefly, and kills the process and all its
//     descendants (setsid grandchildren and double forks included): none
//     outlives its player.
//
// Check runs the conformance check of `evolve env check`: the handshake,
// the same seeds played twice in two processes in opposite orders, byte
// for byte equal outcomes (the second process over the direct channel
// when the environment declares it), conforming messages, and the time
// per step and per episode.
package process
