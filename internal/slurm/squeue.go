package slurm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// TaskState is one array task as squeue lists it.
type TaskState struct {
	Task     int    // the array index (SLURM_ARRAY_TASK_ID), >= 0
	State    string // Slurm's state name: PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL PREEMPTED OUT_OF_MEMORY BOOT_FAIL DEADLINE REQUEUED ...
	Reason   string // why it is pending or why it ended (e.g. "JobArrayTaskLimit", "NonZeroExitCode"); "" for Slurm's "None"
	Node     string // the node it runs or ran on; "" while pending
	ExitCode int    // the batch script's exit status, 0-255; 0 while pending or running, and when it was killed by a signal
	Signal   int    // the signal that killed it (e.g. 9 or 15 when cancelled), 0 if none
}

// squeueFormat is the -O format of ArrayStatus: fields separated by '|'
// with no padding or truncation (an empty size after ':' means both, in
// Slurm 22.05), the free-text reason last. exit_code is the raw wait
// status (exit code << 8 | signal), e.g. 1792 for exit code 7.
const squeueFormat = "JobArrayID:|,State:|,NodeList:|,exit_code:|,Reason:"

// ArrayStatus returns the tasks of job array jobID that Slurm still knows,
// by array index, from one call of
//
//	squeue -j ID -r -t all -h -O JobArrayID:|,State:|,NodeList:|,exit_code:|,Reason:
//
// Tasks Slurm forgot (MinJobAge after they ended, default 300 s), and
// pending tasks that were cancelled, are absent. A job unknown to Slurm
// gives an empty map, not an error. A malformed jobID is an error; a
// failing squeue is a *CommandError; output it cannot read is a
// *ParseError.
func (c *Client) ArrayStatus(ctx context.Context, jobID string) (map[int]TaskState, error) {
	if !jobIDRe.MatchString(jobID) {
		return nil, fmt.Errorf("slurm: ArrayStatus: job ID must be digits: %q", jobID)
	}
	out, err := c.run(ctx, "squeue", "-j", jobID, "-r", "-t", "all", "-h", "-O", squeueFormat)
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && ce.ExitCode > 0 && strings.Contains(ce.Stderr, "Invalid job id specified") {
			return map[int]TaskState{}, nil
		}
		return nil, err
	}
	return ParseSqueue(string(out), jobID)
}

// ParseError is a line of squeue's output that ParseSqueue cannot read.
type ParseError struct {
	Line int    // 1-based line number in the output
	Text string // the line
	Msg  string // what is wrong
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("squeue output line %d: %s: %q", e.Line, e.Msg, e.Text)
}

// ParseSqueue reads the output of squeue with ArrayStatus's format (one
// task per line: "JOB_TASK|STATE|NODE|WAITSTATUS|REASON") and returns the
// tasks of job array jobID by index. A pending record that names several
// tasks ("12_[3-7%2]", "12_[1,4-5]", as squeue prints without -r) gives
// one TaskState per task. Records of other jobs and records with no array
// index (a job that is not an array) are skipped; blank lines are
// ignored; for a task listed twice the last line wins. The wait status
// may also be written "CODE:SIGNAL" (as scontrol does). A line with fewer
// than five fields, a bad task index or range, or a bad wait status is a
// *ParseError.
func ParseSqueue(out, jobID string) (map[int]TaskState, error) {
	tasks := map[int]TaskState{}
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		bad := func(format string, a ...any) error {
			return &ParseError{Line: n + 1, Text: line, Msg: fmt.Sprintf(format, a...)}
		}
		f := strings.SplitN(line, "|", 5)
		if len(f) < 5 {
			return nil, bad("%d fields separated by '|', want 5 (JOB_TASK|STATE|NODE|WAITSTATUS|REASON)", len(f))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		job, idx, ok := strings.Cut(f[0], "_")
		if job != jobID || !ok || idx == "N/A" {
			continue
		}
		var indices []int
		if strings.HasPrefix(idx, "[") {
			if !strings.HasSuffix(idx, "]") {
				return nil, bad("task list %q has no closing ']'", idx)
			}
			body := idx[1 : len(idx)-1]
			if i := strings.IndexByte(body, '%'); i >= 0 {
				if _, err := strconv.Atoi(body[i+1:]); err != nil {
					return nil, bad("task list %q: bad throttle %q", idx, body[i+1:])
				}
				body = body[:i]
			}
			var err error
			indices, err = ParseArray(body)
			if err != nil {
				return nil, bad("task list %q: %v", idx, err)
			}
		} else {
			t, err := parseIndex(idx)
			if err != nil {
				return nil, bad("task %q: %v", idx, err)
			}
			indices = []int{t}
		}
		if f[1] == "" {
			return nil, bad("empty state")
		}
		code, sig, err := parseWaitStatus(f[3])
		if err != nil {
			return nil, bad("exit code %q: %v", f[3], err)
		}
		st := TaskState{State: f[1], Node: nullable(f[2]), ExitCode: code, Signal: sig, Reason: nullable(f[4])}
		if st.Reason == "None" {
			st.Reason = ""
		}
		for _, t := range indices {
			st.Task = t
			tasks[t] = st
		}
	}
	return tasks, nil
}

// nullable maps Slurm's spellings of nothing to "".
func nullable(s string) string {
	if s == "(null)" || s == "N/A" {
		return ""
	}
	return s
}

// parseWaitStatus reads an exit code as squeue's exit_code prints it (the
// wait status, code<<8 | signal) or as "CODE:SIGNAL"; "" and "N/A" are 0.
func parseWaitStatus(s string) (code, sig int, err error) {
	if s == "" || s == "N/A" {
		return 0, 0, nil
	}
	if c, g, ok := strings.Cut(s, ":"); ok {
		code, err1 := strconv.Atoi(c)
		sig, err2 := strconv.Atoi(g)
		if err1 != nil || err2 != nil || code < 0 || code > 255 || sig < 0 || sig > 255 {
			return 0, 0, errors.New("want CODE:SIGNAL, each 0-255")
		}
		return code, sig, nil
	}
	w, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, 0, errors.New("want a wait status (a non-negative integer) or CODE:SIGNAL")
	}
	return int(w>>8) & 0xff, int(w & 0x7f), nil
}

// maxIndex bounds an array index: far above any cluster's MaxArraySize
// (Slurm caps it at 4,000,001), low enough that a range cannot be
// expanded into a huge slice by a corrupt line.
const maxIndex = 4_000_000

// parseIndex reads one array index, 0..maxIndex.
func parseIndex(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errors.New("not a non-negative integer")
	}
	t, err := strconv.Atoi(s)
	if err != nil || t > maxIndex {
		return 0, fmt.Errorf("above %d", maxIndex)
	}
	return t, nil
}

// ParseArray reads an array index list as sbatch --array takes it and
// squeue prints it, without the "%K" throttle: comma-separated indices and
// ranges "A-B" (A <= B), optionally with a step "A-B:S" (S >= 1). It
// returns the indices sorted, without duplicates. Indices are 0..4,000,000
// (Slurm's largest MaxArraySize is 4,000,001). An empty list, a bad number
// or a reversed range is an error.
func ParseArray(s string) ([]int, error) {
	if s == "" {
		return nil, errors.New("empty index list")
	}
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(s, ",") {
		rng, stepStr, hasStep := strings.Cut(part, ":")
		lo, hi, isRange := strings.Cut(rng, "-")
		a, err := parseIndex(lo)
		if err != nil {
			return nil, fmt.Errorf("index %q: %v", lo, err)
		}
		b, step := a, 1
		if isRange {
			if b, err = parseIndex(hi); err != nil {
				return nil, fmt.Errorf("index %q: %v", hi, err)
			}
			if b < a {
				return nil, fmt.Errorf("range %q ends before it starts", rng)
			}
		}
		if hasStep {
			if !isRange {
				return nil, fmt.Errorf("step %q without a range", part)
			}
			if step, err = parseIndex(stepStr); err != nil || step == 0 {
				return nil, fmt.Errorf("step %q: want a positive integer", stepStr)
			}
		}
		for t := a; t <= b; t += step {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// FormatArray writes tasks as the value of sbatch's --array: sorted,
// without duplicates, consecutive runs as ranges ("0-7", "3,5",
// "0-3,7,9-11"), then "%maxParallel" when maxParallel > 0. tasks is not
// modified. An empty tasks, a negative or too large index (above
// 4,000,000), or a negative maxParallel is an error.
func FormatArray(tasks []int, maxParallel int) (string, error) {
	if len(tasks) == 0 {
		return "", errors.New("no task")
	}
	if maxParallel < 0 {
		return "", fmt.Errorf("negative max parallel %d", maxParallel)
	}
	sorted := append([]int(nil), tasks...)
	sort.Ints(sorted)
	if sorted[0] < 0 {
		return "", fmt.Errorf("negative task index %d", sorted[0])
	}
	if last := sorted[len(sorted)-1]; last > maxIndex {
		return "", fmt.Errorf("task index %d above %d", last, maxIndex)
	}
	var b strings.Builder
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] <= sorted[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(sorted[i]))
		if sorted[j] != sorted[i] {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	if maxParallel > 0 {
		b.WriteByte('%')
		b.WriteString(strconv.Itoa(maxParallel))
	}
	return b.String(), nil
}

// Terminal reports whether a task in state (a name as squeue prints it;
// anything after the first space, as in sacct's "CANCELLED by 0", is
// ignored) will not run again on its own: Slurm's finished base states
// (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED,
// OUT_OF_MEMORY, BOOT_FAIL, DEADLINE: the states IS_JOB_FINISHED accepts
// in Slurm's src/common/slurm_protocol_defs.h), REVOKED (a federated job
// that runs on another cluster), and the held requeue states
// (REQUEUE_HOLD, SPECIAL_EXIT), which wait for a user's release: a caller
// that resubmits such a task should cancel it first. Pending, running, completing, suspended, requeued and
// unknown states are not terminal; a PENDING task held by a user or an
// administrator (Reason JobHeldUser, JobHeldAdmin) is not terminal either:
// look at its Reason.
func Terminal(state string) bool {
	if i := strings.IndexByte(state, ' '); i >= 0 {
		state = state[:i]
	}
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
		"OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REVOKED", "REQUEUE_HOLD", "SPECIAL_EXIT":
		return true
	}
	return false
}
