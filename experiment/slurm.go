package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"evolve/envs"
	"evolve/internal/atomicfile"
	"evolve/internal/slurm"
	"evolve/play"
	"evolve/rundir"
)

// slurmExecutor is the Slurm executor: each phase goes to the cluster as
// one job array of `evolve shard` tasks on a directory the nodes share
// (<run>/slurm/<phase>/), and the controller polls squeue until every
// shard's files are there, then merges them in seed order. See
// docs/slurm.md.
//
// Layout of a phase directory (named by the run's own IDs: generation,
// split, version and a hash of what is played, never Slurm's job ID):
//
//	phase.json          what the tasks play (shardSpec)
//	jobs.json           the job arrays submitted for it, for --resume
//	shard-NNNN.out      task NNNN's outcomes (gob), written atomically
//	shard-NNNN.exit     its exit record (JSON), written after the .out
//	logs/NNNN-JOB.out   each attempt's stdout and stderr
type slurmExecutor struct {
	cfg     rundir.ExecutorConfig
	client  *slurm.Client
	command []string      // the evolve binary and arguments before "shard"
	spec    shardSpec     // RunID, Config, Workdir, LLMCache filled
	dir     func() string // the run directory (known once it is created)
	logger  *slog.Logger

	mu   sync.Mutex
	jobs []rundir.SlurmJob // every job this process submitted or re-attached to
	live map[string]bool
}

// newSlurmExecutor returns the Slurm executor of cfg for the run with the
// given ID and resolved config.
func newSlurmExecutor(cfg rundir.ExecutorConfig, runID string, resolved []byte, llmCache, llmCacheDir string, dir func() string, logger *slog.Logger) (*slurmExecutor, error) {
	cmd := cfg.Command
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("executor: finding this evolve binary for the Slurm tasks: %w (set executor.command)", err)
		}
		cmd = []string{exe}
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &slurmExecutor{
		cfg:     cfg,
		client:  &slurm.Client{Partition: cfg.Partition, Account: cfg.Account, TimeLimit: cfg.TimeLimit, ExtraArgs: cfg.ExtraArgs},
		command: cmd,
		spec:    shardSpec{Schema: shardSchema, RunID: runID, Config: string(resolved), Workdir: wd, LLMCache: llmCache, LLMCacheDir: llmCacheDir},
		dir:     dir,
		logger:  logger,
		live:    map[string]bool{},
	}, nil
}

// Jobs returns the job arrays submitted so far, in submission order.
func (x *slurmExecutor) Jobs() []rundir.SlurmJob {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]rundir.SlurmJob(nil), x.jobs...)
}

// phaseName names a phase directory: generation, split, version and the
// first 12 hex digits of the SHA-256 of its phase.json, so that a resume
// finds the directory of the same work and different work never shares
// one.
func phaseName(spec *shardSpec) (string, []byte, error) {
	spec.Phase = ""
	data, err := json.MarshalIndent(spec, "", " ")
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(data)
	version := "unknown"
	if spec.Prompt != nil {
		version = spec.Prompt.Version
	}
	name := fmt.Sprintf("g%03d-%s-%s-%s", spec.Generation, spec.Split, version, hex.EncodeToString(sum[:])[:12])
	spec.Phase = name
	data, err = json.MarshalIndent(spec, "", " ")
	return name, append(data, '\n'), err
}

// phaseRun is the controller's state of one phase.
type phaseRun struct {
	dir      string
	name     string
	shards   [][]uint64
	done     []*shardResult
	task     []string // job ID of each shard's current attempt, "" if none
	tries    []int    // submissions of each shard
	missing  []int    // consecutive polls that found its task neither in squeue nor done
	jobs     []jobFile
	finished int // episodes merged
	// squeueFailing is when squeue began to fail, zero while it answers.
	squeueFailing time.Time
}

// jobFile is one entry of a phase's jobs.json.
type jobFile struct {
	JobID  string    `json:"job_id"`
	Name   string    `json:"name"`
	Tasks  []int     `json:"tasks"`
	Retry  int       `json:"retry"`
	Submit time.Time `json:"submitted"`
}

// Play implements play.Executor on the cluster.
func (x *slurmExecutor) Play(ctx context.Context, ph play.Phase, seeds []uint64) ([]envs.Outcome, error) {
	if len(seeds) == 0 {
		return nil, nil
	}
	start := time.Now()
	spec := x.spec
	spec.Generation, spec.Split, spec.Params, spec.Prompt, spec.Record = ph.Generation, ph.Split, ph.Params, ph.Prompt, ph.Record
	spec.Shards = cutShards(seeds, x.cfg.ArraySize)
	name, data, err := phaseName(&spec)
	if err != nil {
		return nil, err
	}
	// The tasks run elsewhere: they need the phase directory's absolute
	// path (a run or eval directory may be given relative, as --out runs).
	root, err := filepath.Abs(x.dir())
	if err != nil {
		return nil, err
	}
	p := &phaseRun{
		dir: filepath.Join(root, "slurm", name), name: name, shards: spec.Shards,
		done: make([]*shardResult, len(spec.Shards)), task: make([]string, len(spec.Shards)),
		tries: make([]int, len(spec.Shards)), missing: make([]int, len(spec.Shards)),
	}
	if err := os.MkdirAll(filepath.Join(p.dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	if old, err := os.ReadFile(filepath.Join(p.dir, "phase.json")); err != nil || !bytes.Equal(old, data) {
		if err := atomicfile.WriteFile(filepath.Join(p.dir, "phase.json"), data, 0o644); err != nil {
			return nil, err
		}
	}
	// Reuse what an earlier process of this run left: finished shards,
	// and jobs still queued or running.
	if err := x.attach(ctx, p); err != nil {
		return nil, err
	}
	x.progress(p, ph)
	var pending []int
	for i := range p.shards {
		if p.done[i] == nil && p.task[i] == "" {
			pending = append(pending, i)
		}
	}
	if err := x.submit(ctx, p, pending, 0); err != nil {
		return nil, err
	}
	tick := time.NewTicker(x.cfg.PollInterval)
	defer tick.Stop()
	for !p.complete() {
		select {
		case <-ctx.Done():
			x.cancel(p)
			return nil, ctx.Err()
		case <-tick.C:
		}
		if err := x.poll(ctx, p); err != nil {
			if ctx.Err() != nil {
				x.cancel(p)
				return nil, ctx.Err()
			}
			x.cancel(p)
			return nil, err
		}
		x.progress(p, ph)
	}
	out := make([]envs.Outcome, 0, len(seeds))
	for _, res := range p.done {
		out = append(out, res.Outcomes...)
		if ph.OnError != nil {
			for _, se := range res.Errors {
				ee := &play.EpisodeError{Seed: se.Seed, Err: errors.New(se.Err), Stack: se.Stack}
				if se.Panic != "" {
					ee.Panic = se.Panic
				}
				ph.OnError(ee)
			}
		}
	}
	x.finishJobs(p)
	x.logger.Info("slurm phase merged", "phase", name, "shards", len(p.shards), "episodes", len(out), "seconds", time.Since(start).Seconds())
	return out, nil
}

func (p *phaseRun) complete() bool {
	for _, d := range p.done {
		if d == nil {
			return false
		}
	}
	return true
}

// progress reports the episodes merged so far.
func (x *slurmExecutor) progress(p *phaseRun, ph play.Phase) {
	n := 0
	for i, d := range p.done {
		if d != nil {
			n += len(p.shards[i])
		}
	}
	if n != p.finished && ph.Progress != nil {
		total := 0
		for _, s := range p.shards {
			total += len(s)
		}
		ph.Progress(n, total)
	}
	p.finished = n
}

// attach reads the phase directory's finished shards and jobs.json, and
// re-attaches each unfinished shard to its job's task if Slurm still has
// it queued or running under this phase's job name.
func (x *slurmExecutor) attach(ctx context.Context, p *phaseRun) error {
	for i := range p.shards {
		if res, ok := x.finished(p, i); ok {
			p.done[i] = res
		}
	}
	data, err := os.ReadFile(filepath.Join(p.dir, "jobs.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &p.jobs); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(p.dir, "jobs.json"), err)
	}
	for _, j := range p.jobs {
		for _, t := range j.Tasks {
			if t >= 0 && t < len(p.tries) {
				p.tries[t]++
			}
		}
		// Job IDs restart when a controller starts cold: the ID must
		// still name this phase's job.
		if name, err := x.client.JobName(ctx, j.JobID); err != nil {
			return err
		} else if name != p.jobName() {
			continue
		}
		states, err := x.client.ArrayStatus(ctx, j.JobID)
		if err != nil {
			return err
		}
		for t, st := range states {
			if t < 0 || t >= len(p.shards) || p.done[t] != nil || slurm.Terminal(st.State) {
				continue
			}
			p.task[t] = j.JobID
			x.live[j.JobID] = true
		}
		if x.live[j.JobID] {
			x.logger.Info("slurm job re-attached", "phase", p.name, "job", j.JobID)
			x.addJob(rundir.SlurmJob{Phase: p.name, JobID: j.JobID, Tasks: j.Tasks, Retry: j.Retry, Submit: j.Submit})
		}
	}
	return nil
}

// jobName is the Slurm job name of the phase's arrays.
func (p *phaseRun) jobName() string { return "evolve-" + p.name }

// finished returns shard i's outcomes if its task wrote them completely.
func (x *slurmExecutor) finished(p *phaseRun, i int) (*shardResult, bool) {
	e, ok, err := readExit(p.dir, i)
	if err != nil || !ok || e.Exit != 0 {
		return nil, false
	}
	res, err := readShard(p.dir, i, len(p.shards[i]))
	if err != nil {
		return nil, false
	}
	x.noteNode(p.name, e.Job, e.Node)
	return res, true
}

// submit sends the shards tasks of p as one job array.
func (x *slurmExecutor) submit(ctx context.Context, p *phaseRun, tasks []int, retry int) error {
	if len(tasks) == 0 {
		return nil
	}
	cmd := append(append([]string(nil), x.command...), "shard", "--phase", p.dir)
	spec := slurm.ArraySpec{
		Name: p.jobName(), Command: cmd, Dir: p.dir,
		Output: filepath.Join(p.dir, "logs", "%a-%A.out"),
		Tasks:  tasks, MaxParallel: x.cfg.MaxParallel,
	}
	id, err := x.client.SubmitArray(ctx, spec)
	if err != nil {
		return fmt.Errorf("phase %s: submitting %d tasks: %w", p.name, len(tasks), err)
	}
	now := time.Now().UTC()
	p.jobs = append(p.jobs, jobFile{JobID: id, Name: p.jobName(), Tasks: tasks, Retry: retry, Submit: now})
	data, err := json.MarshalIndent(p.jobs, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(p.dir, "jobs.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	for _, t := range tasks {
		p.task[t] = id
		p.tries[t]++
		p.missing[t] = 0
	}
	x.mu.Lock()
	x.live[id] = true
	x.mu.Unlock()
	x.addJob(rundir.SlurmJob{Phase: p.name, JobID: id, Tasks: tasks, Retry: retry, Submit: now})
	x.logger.Info("slurm job submitted", "phase", p.name, "job", id, "tasks", len(tasks), "retry", retry)
	return nil
}

// nfsGrace is how long a task Slurm reports COMPLETED may take to show
// its files to the controller before it counts as failed: NFS clients
// cache directory lookups for up to 30 s by default (acdirmin..acdirmax).
const nfsGrace = 30 * time.Second

// squeueGrace is how long squeue may keep failing (a controller that
// restarts, a slurmctld too busy to answer) before the phase fails.
const squeueGrace = 2 * time.Minute

// poll asks Slurm about the phase's live jobs, collects the shards that
// finished, and resubmits the ones that failed or vanished (up to
// Retries), returning an error naming the task, its node and the tail of
// its log when a shard has failed too often.
func (x *slurmExecutor) poll(ctx context.Context, p *phaseRun) error {
	states := map[string]map[int]slurm.TaskState{}
	for i, id := range p.task {
		if p.done[i] != nil || id == "" || states[id] != nil {
			continue
		}
		st, err := x.client.ArrayStatus(ctx, id)
		if err != nil {
			// A controller restarting or overloaded: try again at the
			// next poll, for up to squeueGrace.
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if p.squeueFailing.IsZero() {
				p.squeueFailing = time.Now()
			}
			if time.Since(p.squeueFailing) > squeueGrace {
				return fmt.Errorf("slurm: phase %s: squeue has failed for %v: %w", p.name, squeueGrace, err)
			}
			x.logger.Warn("squeue failed; retrying at the next poll", "phase", p.name, "err", err)
			return nil
		}
		states[id] = st
	}
	p.squeueFailing = time.Time{}
	var retry []int
	maxRetry := 0
	for i, id := range p.task {
		if p.done[i] != nil {
			continue
		}
		st, known := states[id][i]
		// Status first, files second: a task writes its files before it
		// ends, so a task Slurm calls ended has them by now, or never will.
		if res, ok := x.finished(p, i); ok {
			p.done[i], p.task[i] = res, ""
			continue
		}
		why := ""
		e, hasExit, _ := readExit(p.dir, i)
		switch {
		case hasExit && e.Exit != 0:
			why = fmt.Sprintf("exited %d: %s", e.Exit, e.Error)
		case known && !slurm.Terminal(st.State):
			p.missing[i] = 0
			continue // pending, running, requeued
		case known && st.State == "COMPLETED" && time.Duration(p.missing[i])*x.cfg.PollInterval < nfsGrace:
			// Ended well but its files are not visible yet: a shared
			// filesystem (NFS) may show a new file on another host only
			// after its attribute cache expires.
			p.missing[i]++
			continue
		case known:
			why = fmt.Sprintf("ended %s (%s, exit code %d) without writing its shard", st.State, st.Reason, st.ExitCode)
		default:
			// Unknown to Slurm and no result: gone (a job Slurm forgot, a
			// node that failed). Wait one more poll in case it is just
			// being written.
			p.missing[i]++
			if p.missing[i] < 2 {
				continue
			}
			why = "vanished from squeue without writing its shard"
		}
		node := st.Node
		if hasExit && e.Node != "" {
			node = e.Node
		}
		if p.tries[i] > x.cfg.Retries {
			return fmt.Errorf("slurm: phase %s: task %d (job %s_%d) on node %s failed %d times, the last %s; log %s:\n%s",
				p.name, i, id, i, orNone(node), p.tries[i], why, x.logPath(p, i, id), tail(x.logPath(p, i, id), 20))
		}
		x.logger.Warn("slurm task failed; resubmitting", "phase", p.name, "task", i, "job", id, "node", node, "why", why, "try", p.tries[i])
		if known {
			// A task held after a requeue (REQUEUE_HOLD) would run again
			// if released: cancel it before its replacement is submitted.
			if err := x.client.Cancel(ctx, id, i); err != nil {
				x.logger.Warn("scancel failed", "job", id, "task", i, "err", err)
			}
		}
		os.Remove(shardExitFile(p.dir, i))
		retry = append(retry, i)
		if p.tries[i] > maxRetry {
			maxRetry = p.tries[i]
		}
	}
	x.mu.Lock()
	for id := range states {
		still := false
		for i, t := range p.task {
			if t == id && p.done[i] == nil {
				still = true
			}
		}
		if !still {
			delete(x.live, id)
		}
	}
	x.mu.Unlock()
	return x.submit(ctx, p, retry, maxRetry)
}

// logPath is the log file of shard i's attempt in job id.
func (x *slurmExecutor) logPath(p *phaseRun, i int, id string) string {
	return filepath.Join(p.dir, "logs", fmt.Sprintf("%d-%s.out", i, id))
}

// tail returns the last n lines of the file at path, or a note that it
// cannot be read.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// cancel scancels the phase's live jobs (on SIGINT, SIGTERM or an error).
func (x *slurmExecutor) cancel(p *phaseRun) {
	seen := map[string]bool{}
	for i, id := range p.task {
		if id == "" || seen[id] || p.done[i] != nil {
			continue
		}
		seen[id] = true
		if err := x.cancelJob(id); err != nil {
			x.logger.Warn("scancel failed", "job", id, "err", err)
		} else {
			x.logger.Info("slurm job cancelled", "phase", p.name, "job", id)
		}
	}
}

// cancelJob scancels job id, even after the run's context is cancelled
// (within 30 s), and forgets it as live.
func (x *slurmExecutor) cancelJob(id string) error {
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	x.mu.Lock()
	delete(x.live, id)
	x.mu.Unlock()
	return x.client.Cancel(ctx, id)
}

func (x *slurmExecutor) addJob(j rundir.SlurmJob) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.jobs = append(x.jobs, j)
}

// noteNode records that a task of job ran on node.
func (x *slurmExecutor) noteNode(phase, job, node string) {
	if node == "" {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.jobs {
		j := &x.jobs[k]
		if j.Phase == phase && (job == "" || j.JobID == job) {
			i := sort.SearchStrings(j.Nodes, node)
			if i == len(j.Nodes) || j.Nodes[i] != node {
				j.Nodes = append(j.Nodes[:i], append([]string{node}, j.Nodes[i:]...)...)
			}
			if job != "" {
				return
			}
		}
	}
}

// finishJobs stamps the seconds from submission to merge on the phase's
// jobs.
func (x *slurmExecutor) finishJobs(p *phaseRun) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.jobs {
		if x.jobs[k].Phase == p.name && x.jobs[k].Seconds == 0 {
			x.jobs[k].Seconds = time.Since(x.jobs[k].Submit).Seconds()
		}
	}
}

// Close scancels any job still live (none after a phase that finished).
func (x *slurmExecutor) Close() error {
	x.mu.Lock()
	ids := make([]string, 0, len(x.live))
	for id := range x.live {
		ids = append(ids, id)
	}
	x.mu.Unlock()
	var first error
	for _, id := range ids {
		if err := x.cancelJob(id); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// allJobs returns every job array of the run in dir, over all its
// sessions, from the phases' jobs.json files, in submission order, with
// the nodes their tasks' exit records name and, for jobs this process
// saw end, the seconds from submission to merge.
func (x *slurmExecutor) allJobs(dir string) []rundir.SlurmJob {
	seconds := map[string]float64{}
	for _, j := range x.Jobs() {
		seconds[j.Phase+" "+j.JobID] = j.Seconds
	}
	phases, _ := filepath.Glob(filepath.Join(dir, "slurm", "*", "jobs.json"))
	var out []rundir.SlurmJob
	for _, path := range phases {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var jobs []jobFile
		if json.Unmarshal(data, &jobs) != nil {
			continue
		}
		pdir := filepath.Dir(path)
		phase := filepath.Base(pdir)
		for _, j := range jobs {
			sj := rundir.SlurmJob{Phase: phase, JobID: j.JobID, Tasks: j.Tasks, Retry: j.Retry, Submit: j.Submit, Seconds: seconds[phase+" "+j.JobID]}
			nodes := map[string]bool{}
			for _, t := range j.Tasks {
				if e, ok, _ := readExit(pdir, t); ok && e.Job == j.JobID && e.Node != "" {
					nodes[e.Node] = true
				}
			}
			for n := range nodes {
				sj.Nodes = append(sj.Nodes, n)
			}
			sort.Strings(sj.Nodes)
			out = append(out, sj)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Submit.Before(out[k].Submit) })
	return out
}
