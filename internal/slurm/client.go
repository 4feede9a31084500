package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"evolve/internal/atomicfile"
)

// Client runs Slurm's commands. The zero value submits to the cluster's
// default partition with no account, the partition's default time limit,
// and the process's own environment. A Client is safe for concurrent use:
// each method runs its own command.
type Client struct {
	Partition string   // -p, "" = the cluster's default
	Account   string   // -A, "" = none
	TimeLimit string   // -t, e.g. "01:00:00", "" = partition default
	ExtraArgs []string // appended to sbatch's arguments verbatim
	Env       []string // extra environment for the commands (e.g. SLURM_CONF=...), nil = inherit
}

// ErrNoCluster is wrapped by Available's error when no Slurm cluster can
// be used: a command is missing or the controller does not answer.
var ErrNoCluster = errors.New("no Slurm cluster")

// CommandError is a Slurm command that failed: it could not start, or it
// exited non-zero. Every error of a Client method that ran a command wraps
// one.
type CommandError struct {
	Args     []string // the command line, Args[0] the program (e.g. "squeue")
	ExitCode int      // the exit status; -1 if the command did not start or was killed
	Stderr   string   // what the command wrote to stderr, trimmed
	Err      error    // the error from os/exec (*exec.ExitError, exec.ErrNotFound, a context error)
}

func (e *CommandError) Error() string {
	cmd := strings.Join(e.Args, " ")
	switch {
	case e.ExitCode >= 0 && e.Stderr != "":
		return fmt.Sprintf("%s: exit code %d: %s", cmd, e.ExitCode, e.Stderr)
	case e.ExitCode >= 0:
		return fmt.Sprintf("%s: exit code %d (no output on stderr)", cmd, e.ExitCode)
	case e.Stderr != "":
		return fmt.Sprintf("%s: %v: %s", cmd, e.Err, e.Stderr)
	default:
		return fmt.Sprintf("%s: %v", cmd, e.Err)
	}
}

func (e *CommandError) Unwrap() error { return e.Err }

// getenv returns the value of key in the commands' environment: the last
// setting in c.Env, else the process's.
func (c *Client) getenv(key string) string {
	for i := len(c.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(c.Env[i], "="); ok && k == key {
			return v
		}
	}
	return os.Getenv(key)
}

// run runs Slurm's program name with args and returns its stdout. Its
// error is a *CommandError.
func (c *Client) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if c.Env != nil {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	ce := &CommandError{Args: append([]string{name}, args...), ExitCode: -1, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		ce.ExitCode = ee.ExitCode()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		ce.Err = ctxErr
	}
	return stdout.Bytes(), ce
}

// Available returns nil if Slurm's commands (sbatch, squeue, scancel,
// sinfo) are on the PATH and the controller answers `sinfo -h`. Otherwise
// its error wraps ErrNoCluster and says what is missing: the commands, the
// file SLURM_CONF names (c.Env's, else the process's), or sinfo's
// *CommandError (e.g. "Unable to contact slurm controller"). sinfo may
// take about its MessageTimeout (default 10 s) to give up on a controller
// that is down, and retries a missing default slurm.conf for 60 s; ctx
// bounds the wait.
func (c *Client) Available(ctx context.Context) error {
	var missing []string
	for _, name := range []string{"sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s not on the PATH", ErrNoCluster, strings.Join(missing, ", "))
	}
	// sinfo retries a missing configuration file for 60 s: say it at once.
	if conf := c.getenv("SLURM_CONF"); conf != "" {
		if _, err := os.Stat(conf); err != nil {
			return fmt.Errorf("%w: SLURM_CONF names a file that cannot be read: %w", ErrNoCluster, err)
		}
	}
	out, err := c.run(ctx, "sinfo", "-h", "-o", "%P %a")
	if err != nil {
		return fmt.Errorf("%w: the controller does not answer: %w", ErrNoCluster, err)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return fmt.Errorf("%w: sinfo -h lists no partition", ErrNoCluster)
	}
	return nil
}

// ArraySpec describes one job array: the same command run once per task
// index.
type ArraySpec struct {
	Name        string   // --job-name
	Command     []string // argv run by each task (the task reads SLURM_ARRAY_TASK_ID); written into a batch script under Dir
	Dir         string   // working dir + where the batch script is written (shared filesystem)
	Output      string   // log path pattern, e.g. Dir+"/logs/%a.out" (%A job id, %a task)
	Tasks       []int    // array indices to run (e.g. 0..N-1, or a subset on resubmit) -> --array=0-7%K or 3,5%K
	MaxParallel int      // %K; 0 = no limit
}

var jobIDRe = regexp.MustCompile(`^[0-9]+$`)

// SubmitArray submits s as one job array with `sbatch --parsable` and
// returns Slurm's job ID of the array (digits; the ";cluster" suffix of a
// federated cluster is dropped).
//
// The batch script is written atomically to Dir/NAME.sbatch (NAME is
// s.Name with characters other than letters, digits, '.', '_' and '-'
// replaced by '_'): "#!/bin/sh" and `exec` of s.Command, each argument
// single-quoted. The sbatch arguments are, in order: --job-name, --array
// (s.Tasks sorted, duplicates dropped, runs written as ranges, then
// "%MaxParallel" when MaxParallel > 0), --chdir=Dir, --output (when
// s.Output is set; Slurm's default is Dir/slurm-%A_%a.out), -p, -A, -t
// (when set), then c.ExtraArgs, then the script. The directory of s.Output
// is created when its name holds no '%' pattern (Slurm does not create
// it, and a task whose log cannot be opened fails with no log).
//
// Errors: a bad spec (empty Name or Command, a relative Dir, no task, a
// negative task or MaxParallel) names the field and value; writing the
// script or the log directory names the path; a failing sbatch is a
// *CommandError (e.g. an index above the cluster's MaxArraySize, default
// 1001, or an unknown partition).
func (c *Client) SubmitArray(ctx context.Context, s ArraySpec) (jobID string, err error) {
	switch {
	case s.Name == "":
		return "", errors.New("slurm: ArraySpec.Name is empty")
	case len(s.Command) == 0 || s.Command[0] == "":
		return "", fmt.Errorf("slurm: job %q: ArraySpec.Command is empty", s.Name)
	case !filepath.IsAbs(s.Dir):
		return "", fmt.Errorf("slurm: job %q: ArraySpec.Dir must be an absolute path on the shared filesystem: %q", s.Name, s.Dir)
	case len(s.Tasks) == 0:
		return "", fmt.Errorf("slurm: job %q: ArraySpec.Tasks is empty", s.Name)
	case s.MaxParallel < 0:
		return "", fmt.Errorf("slurm: job %q: ArraySpec.MaxParallel must be >= 0: %d", s.Name, s.MaxParallel)
	}
	array, err := FormatArray(s.Tasks, s.MaxParallel)
	if err != nil {
		return "", fmt.Errorf("slurm: job %q: ArraySpec.Tasks: %w", s.Name, err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return "", fmt.Errorf("slurm: job %q: %w", s.Name, err)
	}
	script := filepath.Join(s.Dir, scriptName(s.Name)+".sbatch")
	if err := atomicfile.WriteFile(script, batchScript(s), 0o755); err != nil {
		return "", fmt.Errorf("slurm: job %q: writing the batch script: %w", s.Name, err)
	}
	if s.Output != "" && !strings.Contains(filepath.Dir(s.Output), "%") {
		if err := os.MkdirAll(filepath.Dir(s.Output), 0o755); err != nil {
			return "", fmt.Errorf("slurm: job %q: the log directory: %w", s.Name, err)
		}
	}
	args := []string{"--parsable", "--job-name=" + s.Name, "--array=" + array, "--chdir=" + s.Dir}
	if s.Output != "" {
		args = append(args, "--output="+s.Output)
	}
	if c.Partition != "" {
		args = append(args, "--partition="+c.Partition)
	}
	if c.Account != "" {
		args = append(args, "--account="+c.Account)
	}
	if c.TimeLimit != "" {
		args = append(args, "--time="+c.TimeLimit)
	}
	args = append(args, c.ExtraArgs...)
	args = append(args, script)
	out, err := c.run(ctx, "sbatch", args...)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if i := strings.IndexByte(id, ';'); i >= 0 {
		id = id[:i]
	}
	if !jobIDRe.MatchString(id) {
		return "", fmt.Errorf("slurm: sbatch --parsable printed %q, not a job ID", strings.TrimSpace(string(out)))
	}
	return id, nil
}

// scriptName turns a job name into a file name.
func scriptName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
}

// batchScript is the script SubmitArray submits.
func batchScript(s ArraySpec) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# Job array %s, written by evolve (internal/slurm): each task runs the\n", shellQuote(s.Name))
	b.WriteString("# command below in the submission's --chdir, with SLURM_ARRAY_TASK_ID set.\n")
	b.WriteString("exec")
	for _, a := range s.Command {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

// shellQuote quotes s for POSIX sh: in single quotes, each ' in s closed,
// escaped with a backslash and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Cancel cancels job array jobID with scancel: the whole array when no
// task is given, else only those tasks (scancel JOB_TASK ...). A running
// task ends CANCELLED; a pending task that is cancelled disappears from
// squeue at once (measured on Slurm 22.05), so ArrayStatus no longer lists
// it. Cancelling a job or task that has ended or that Slurm has forgotten
// is not an error. A malformed jobID or a negative task is an error; a
// failing scancel is a *CommandError.
func (c *Client) Cancel(ctx context.Context, jobID string, tasks ...int) error {
	if !jobIDRe.MatchString(jobID) {
		return fmt.Errorf("slurm: Cancel: job ID must be digits: %q", jobID)
	}
	args := []string{jobID}
	if len(tasks) > 0 {
		args = args[:0]
		for _, t := range tasks {
			if t < 0 {
				return fmt.Errorf("slurm: Cancel: job %s: negative task %d", jobID, t)
			}
			args = append(args, jobID+"_"+strconv.Itoa(t))
		}
	}
	_, err := c.run(ctx, "scancel", args...)
	var ce *CommandError
	if errors.As(err, &ce) && alreadyGone(ce.Stderr) {
		return nil
	}
	return err
}

// alreadyGone reports whether scancel's stderr only says that the job has
// ended or is unknown.
func alreadyGone(stderr string) bool {
	if stderr == "" {
		return false
	}
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, "Invalid job id") && !strings.Contains(line, "already completing or completed") {
			return false
		}
	}
	return true
}

// JobName returns the name (--job-name) of job jobID, from
// `squeue -j ID -h -o %j`, or "" if Slurm does not know the job. Job IDs
// restart at 1 when a controller starts cold, so a caller that kept an ID
// across a restart checks the name before acting on the job. A malformed
// jobID is an error; a failing squeue is a *CommandError.
func (c *Client) JobName(ctx context.Context, jobID string) (string, error) {
	if !jobIDRe.MatchString(jobID) {
		return "", fmt.Errorf("slurm: JobName: job ID must be digits: %q", jobID)
	}
	out, err := c.run(ctx, "squeue", "-j", jobID, "-h", "-t", "all", "-o", "%j")
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && ce.ExitCode > 0 && strings.Contains(ce.Stderr, "Invalid job id specified") {
			return "", nil
		}
		return "", err
	}
	name, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(name), nil
}
