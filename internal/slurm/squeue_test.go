package slurm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// captured reads a squeue capture under testdata, without its first line
// (a comment saying how it was made).
func captured(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ := strings.Cut(string(b), "\n")
	return out
}

func TestParseSqueueCaptured(t *testing.T) {
	pending := func(task int) TaskState {
		return TaskState{Task: task, State: "PENDING", Reason: "JobArrayTaskLimit"}
	}
	running := func(task int) TaskState {
		return TaskState{Task: task, State: "RUNNING", Node: "vm"}
	}
	// Both captures of job 28 describe the same tasks: squeue without -r
	// prints the pending ones as one record, "28_[2-4,6-7,10,12-14%2]".
	job28 := map[int]TaskState{0: running(0), 1: running(1)}
	for _, task := range []int{2, 3, 4, 6, 7, 10, 12, 13, 14} {
		job28[task] = pending(task)
	}
	tests := []struct {
		file string
		job  string
		want map[int]TaskState
	}{
		{"squeue-ended.txt", "27", map[int]TaskState{
			0: {Task: 0, State: "COMPLETED", Node: "vm"},
			1: {Task: 1, State: "FAILED", Node: "vm", ExitCode: 7, Reason: "NonZeroExitCode"},
			2: {Task: 2, State: "CANCELLED", Node: "vm", Signal: 15},
			3: {Task: 3, State: "FAILED", Node: "vm", Signal: 9, Reason: "JobLaunchFailure"},
		}},
		{"squeue-pending-record.txt", "28", job28},
		{"squeue-pending-expanded.txt", "28", job28},
		// Records of another job are not this job's.
		{"squeue-ended.txt", "2", map[int]TaskState{}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.job, func(t *testing.T) {
			got, err := ParseSqueue(captured(t, tt.file), tt.job)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSqueue =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestParseSqueueLines(t *testing.T) {
	tests := []struct {
		name, out string
		want      map[int]TaskState
	}{
		{"empty", "", map[int]TaskState{}},
		{"blank lines and CRLF", "\n5_1|RUNNING|n1|0|None\r\n\n", map[int]TaskState{1: {Task: 1, State: "RUNNING", Node: "n1"}}},
		{"padded fields", "5_1     |COMPLETED |n1 |0 |None\n", map[int]TaskState{1: {Task: 1, State: "COMPLETED", Node: "n1"}}},
		{"scontrol's CODE:SIGNAL", "5_2|FAILED|n1|7:0|NonZeroExitCode\n", map[int]TaskState{2: {Task: 2, State: "FAILED", Node: "n1", ExitCode: 7, Reason: "NonZeroExitCode"}}},
		{"reason with '|' and spaces", "5_0|PENDING|(null)|N/A|ReqNodeNotAvail, UnavailableNodes:n[1-3]|x\n",
			map[int]TaskState{0: {Task: 0, State: "PENDING", Reason: "ReqNodeNotAvail, UnavailableNodes:n[1-3]|x"}}},
		{"stepped range", "5_[0-8:4%1]|PENDING||0|JobArrayTaskLimit\n", map[int]TaskState{
			0: {Task: 0, State: "PENDING", Reason: "JobArrayTaskLimit"},
			4: {Task: 4, State: "PENDING", Reason: "JobArrayTaskLimit"},
			8: {Task: 8, State: "PENDING", Reason: "JobArrayTaskLimit"}}},
		{"not an array", "5|RUNNING|n1|0|None\n5_N/A|RUNNING|n1|0|None\n", map[int]TaskState{}},
		{"last line wins", "5_1|PENDING||0|BeginTime\n5_1|RUNNING|n2|0|None\n", map[int]TaskState{1: {Task: 1, State: "RUNNING", Node: "n2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSqueue(tt.out, "5")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSqueue(%q) =\n%v\nwant\n%v", tt.out, got, tt.want)
			}
		})
	}
}

func TestParseSqueueErrors(t *testing.T) {
	tests := []struct{ out, msg string }{
		{"5_1|RUNNING|n1|0\n", "4 fields"},
		{"5_x|RUNNING|n1|0|None\n", `task "x"`},
		{"5_-1|RUNNING|n1|0|None\n", `task "-1"`},
		{"5_[1-3|PENDING||0|None\n", "no closing"},
		{"5_[3-1]|PENDING||0|None\n", "ends before it starts"},
		{"5_[1-3%x]|PENDING||0|None\n", "bad throttle"},
		{"5_[]|PENDING||0|None\n", "empty index list"},
		{"5_[0-9999999]|PENDING||0|None\n", "above 4000000"},
		{"5_1||n1|0|None\n", "empty state"},
		{"5_1|FAILED|n1|-3|None\n", `exit code "-3"`},
		{"5_1|FAILED|n1|7:x|None\n", "CODE:SIGNAL"},
	}
	for _, tt := range tests {
		_, err := ParseSqueue("5_0|RUNNING|n1|0|None\n"+tt.out, "5")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseSqueue(%q) error = %v, want a *ParseError at line 2 with %q", tt.out, err, tt.msg)
		}
	}
}

func TestFormatArray(t *testing.T) {
	tests := []struct {
		tasks []int
		max   int
		want  string
	}{
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, 4, "0-7%4"},
		{[]int{5, 3}, 2, "3,5%2"},
		{[]int{11, 0, 1, 2, 3, 7, 9, 10, 3}, 0, "0-3,7,9-11"},
		{[]int{1000}, 0, "1000"},
	}
	for _, tt := range tests {
		got, err := FormatArray(tt.tasks, tt.max)
		if err != nil || got != tt.want {
			t.Errorf("FormatArray(%v, %d) = %q, %v; want %q", tt.tasks, tt.max, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		tasks []int
		max   int
		msg   string
	}{{nil, 0, "no task"}, {[]int{2, -1}, 0, "negative task index -1"}, {[]int{1}, -2, "negative max parallel"}, {[]int{4_000_001}, 0, "above"}} {
		if _, err := FormatArray(bad.tasks, bad.max); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("FormatArray(%v, %d) error = %v, want %q", bad.tasks, bad.max, err, bad.msg)
		}
	}
}

func TestTerminal(t *testing.T) {
	for _, s := range []string{"COMPLETED", "FAILED", "CANCELLED", "CANCELLED by 0", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REQUEUE_HOLD", "SPECIAL_EXIT"} {
		if !Terminal(s) {
			t.Errorf("Terminal(%q) = false", s)
		}
	}
	for _, s := range []string{"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED", "REQUEUED", "RESIZING", "STOPPED", "", "completed"} {
		if Terminal(s) {
			t.Errorf("Terminal(%q) = true", s)
		}
	}
}

// TestBatchScript runs the batch script with sh: every argument, quotes
// and shell syntax included, reaches the command unchanged.
func TestBatchScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	args := []string{"printf", `[%s]\n`, "it's", "$HOME", "a b", "`x`", "", "line\nbreak", `back\slash`}
	script := filepath.Join(t.TempDir(), "job.sbatch")
	if err := os.WriteFile(script, batchScript(ArraySpec{Name: "it's", Command: args}), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "[it's]\n[$HOME]\n[a b]\n[`x`]\n[]\n[line\nbreak]\n[back\\slash]\n"
	if string(out) != want {
		t.Errorf("script printed %q, want %q", out, want)
	}
	if got := scriptName("shard v1.0.0/val"); got != "shard_v1.0.0_val" {
		t.Errorf("scriptName = %q", got)
	}
}

// FuzzParseSqueue: any output either parses into tasks with valid
// indices and states, or is a *ParseError; never a panic.
func FuzzParseSqueue(f *testing.F) {
	for _, name := range []string{"squeue-ended.txt", "squeue-pending-record.txt", "squeue-pending-expanded.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "27")
		f.Add(string(b), "28")
	}
	f.Add("5_[0-8:4%1]|PENDING||0|x\n5_2|FAILED|n|7:0|y", "5")
	f.Fuzz(func(t *testing.T, out, job string) {
		got, err := ParseSqueue(out, job)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for k, st := range got {
			if k != st.Task || k < 0 || k > maxIndex || st.State == "" || st.ExitCode < 0 || st.ExitCode > 255 || st.Signal < 0 {
				t.Fatalf("bad task %d: %+v", k, st)
			}
		}
	})
}

// FuzzArray: FormatArray's output parses back (ParseArray, after the
// throttle) into the same set of indices.
func FuzzArray(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 7, 9}, uint8(2))
	f.Add([]byte{200, 3, 3}, uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, max uint8) {
		if len(raw) == 0 {
			return
		}
		tasks := make([]int, len(raw))
		for i, b := range raw {
			tasks[i] = int(b)
		}
		s, err := FormatArray(tasks, int(max))
		if err != nil {
			t.Fatal(err)
		}
		body, throttle, _ := strings.Cut(s, "%")
		if (max > 0) != (throttle != "") {
			t.Fatalf("FormatArray(..., %d) = %q", max, s)
		}
		got, err := ParseArray(body)
		if err != nil {
			t.Fatalf("ParseArray(%q): %v", body, err)
		}
		want := slices.Clone(tasks)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			t.Fatalf("ParseArray(FormatArray(%v)) = %v", tasks, got)
		}
	})
}
