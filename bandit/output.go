package bandit

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"evolve/internal/atomicfile"
	"evolve/online"
	"evolve/params"
)

// The files WriteDir writes into a study's directory.
const (
	RewardsFile = "rewards.parquet" // one RewardRow per episode of the table
	RegretFile  = "regret.parquet"  // one RegretRow per policy, repeat and request
	RollbackCSV = "rollback.csv"    // one line per shift of the rollback study
	SummaryMD   = "summary.md"      // Markdown: every table of the study and its methods
	SummaryCSV  = "summary.csv"     // one line per policy
	PlotPNG     = "regret.png"      // mean cumulative regret with 95% CI bands
	PlotSVG     = "regret.svg"      // the same figure as SVG
	// SignalsFile is the study's signal table (Signals), in the format of
	// a prompt store's signals.yaml: copied into a store, it makes evolve
	// serve accept the study's signals.
	SignalsFile = online.SignalTableFile
)

// Files returns the names of the files WriteDir writes, in the order it
// writes them.
func Files() []string {
	return []string{RewardsFile, RegretFile, SummaryCSV, RollbackCSV, SignalsFile, PlotPNG, PlotSVG, SummaryMD}
}

// RewardRow is one row of rewards.parquet: one episode of the table.
type RewardRow struct {
	Context   string  `parquet:"context,dict"`    // the context's name
	Version   string  `parquet:"version,dict"`    // the version's name
	Seed      uint64  `parquet:"seed"`            // the episode's seed
	Score     float64 `parquet:"score"`           // the dungeon's score, points
	Reward    float64 `parquet:"reward"`          // score / the context's scale, in [0, 1]
	EndReason string  `parquet:"end_reason,dict"` // why the episode ended
}

// RegretRow is one row of regret.parquet: one request of one stream as
// one policy played it.
type RegretRow struct {
	Policy  string `parquet:"policy,dict"` // the policy's name (Policies)
	Repeat  int32  `parquet:"repeat"`      // the stream, 0-based
	T       int32  `parquet:"t"`           // the request, 1-based
	Context string `parquet:"context,dict"`
	Seed    uint64 `parquet:"seed"` // the episode's seed
	Version string `parquet:"version,dict"`
	// Reward is the episode's normalised score, in [0, 1].
	Reward float64 `parquet:"reward"`
	// Regret is the request's pseudo-regret: the context's best mean
	// reward minus the chosen version's, >= 0.
	Regret float64 `parquet:"regret"`
	// CumulativeRegret is the sum of Regret over requests 1..T of the
	// stream: non-decreasing in T.
	CumulativeRegret float64 `parquet:"cumulative_regret"`
}

// WriteDir writes the study's files (Files) into dir, which is created
// if missing and must not hold any of them already: nothing written
// before is overwritten. Each file is written atomically
// (internal/atomicfile). The Parquet files are byte-identical for the
// same result, and the result does not depend on Config.Workers. Errors
// name the file.
func WriteDir(dir string, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range Files() {
		p := filepath.Join(dir, f)
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s exists already: choose another --out directory (nothing was written)", p)
		}
	}
	if err := writeParquet(filepath.Join(dir, RewardsFile), "rewards", rewardRows(res)); err != nil {
		return err
	}
	if err := writeParquet(filepath.Join(dir, RegretFile), "regret", regretRows(res)); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Result) error
	}{{SummaryCSV, WriteCSV}, {RollbackCSV, WriteRollbackCSV}, {SignalsFile, func(w io.Writer, _ *Result) error {
		_, err := w.Write(online.FormatSignals(Signals()))
		return err
	}}} {
		var b bytes.Buffer
		if err := f.write(&b, res); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, f.name), err)
		}
	}
	fig, err := RegretFigure(res)
	if err != nil {
		return err
	}
	for _, f := range []string{PlotPNG, PlotSVG} {
		if err := fig.Save(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, SummaryMD), []byte(Markdown(res)), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, SummaryMD), err)
	}
	return nil
}

// writeParquet writes rows to path atomically, zstd-compressed, with the
// key/value metadata evolve.table = table.
func writeParquet[T any](path, table string, rows []T) error {
	err := atomicfile.Write(path, 0o644, func(f *os.File) error {
		w := parquet.NewGenericWriter[T](f,
			parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
			parquet.MaxRowsPerRowGroup(1<<16),
			parquet.KeyValueMetadata("evolve.table", "bandit_"+table))
		for len(rows) > 0 {
			n := min(len(rows), 4096)
			if _, err := w.Write(rows[:n]); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return w.Close()
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// rewardRows returns the table's episodes in (context, version, seed
// index) order.
func rewardRows(res *Result) []RewardRow {
	t := res.Table
	var rows []RewardRow
	for c, cx := range t.Contexts {
		for v, ver := range t.Versions {
			for k, seed := range t.Seeds {
				rows = append(rows, RewardRow{Context: cx.Name, Version: ver.Name, Seed: seed,
					Score: t.Score[c][v][k], Reward: t.Reward[c][v][k], EndReason: t.EndReason[c][v][k]})
			}
		}
	}
	return rows
}

// regretRows returns every request of every trace, in (policy, repeat,
// t) order.
func regretRows(res *Result) []RegretRow {
	t := res.Table
	rows := make([]RegretRow, 0, len(res.Traces)*res.Config.Requests)
	for _, tr := range res.Traces {
		cum := 0.0
		for i := range tr.Version {
			cum += tr.Regret[i]
			rows = append(rows, RegretRow{Policy: tr.Policy, Repeat: int32(tr.Repeat), T: int32(i + 1),
				Context: t.Contexts[tr.Context[i]].Name, Seed: t.Seeds[tr.Seed[i]], Version: t.Versions[tr.Version[i]].Name,
				Reward: tr.Reward[i], Regret: tr.Regret[i], CumulativeRegret: cum})
		}
	}
	return rows
}

// WriteCSV writes the policy table as CSV: a header line, then one line
// per policy in the order of Config.Policies with its final cumulative
// regret (mean, std, 95% CI), the paired difference to the seed's (mean,
// 95% CI; empty without the seed policy), the share of optimal choices,
// the mean reward, and the mean regret accrued in each context (a column
// regret_CONTEXT per context).
func WriteCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	head := []string{"policy", "requests", "repeats", "final_regret_mean", "final_regret_std", "final_regret_ci_low", "final_regret_ci_high",
		"vs_seed_mean", "vs_seed_ci_low", "vs_seed_ci_high", "optimal_share", "mean_reward"}
	for _, cx := range res.Config.Contexts {
		head = append(head, "regret_"+cx.Name)
	}
	cw.Write(head)
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 8, 64)
	}
	for _, s := range res.Summaries {
		line := []string{s.Policy, strconv.Itoa(res.Config.Requests), strconv.Itoa(res.Config.Repeats),
			f(s.Final.Mean), f(s.Final.Std), f(s.Final.CILow), f(s.Final.CIHigh)}
		if s.VsSeed.N > 0 {
			line = append(line, f(s.VsSeed.Mean), f(s.VsSeed.CILow), f(s.VsSeed.CIHigh))
		} else {
			line = append(line, "", "", "")
		}
		line = append(line, f(s.OptimalShare), f(s.MeanReward))
		for _, x := range s.ByContext {
			line = append(line, f(x))
		}
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// WriteRollbackCSV writes the rollback study as CSV: a header line, then
// one line per shift with the trials, the alarms, the false rollbacks
// (alarms before the drop; every alarm at shift 0) and their rate with
// its 95% Wilson CI, the detections within the rule's detection window
// and their rate with its CI, and the median and 95th percentile of the
// delay from the drop to the alarm (empty when nothing was detected).
func WriteRollbackCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	rb := &res.Rollback
	cw.Write([]string{"version", "shift_sigma", "sigma", "trials", "horizon", "rollbacks", "false_rollbacks", "false_rate", "false_ci_low", "false_ci_high",
		"detection_window", "detected_in_window", "detection_rate", "detection_ci_low", "detection_ci_high", "delay_median", "delay_p95"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for _, sc := range rb.Scenarios {
		r := sc.Result
		q := func(p float64) string {
			if len(r.Delays) == 0 {
				return ""
			}
			return strconv.Itoa(r.DelayQuantile(p))
		}
		cw.Write([]string{rb.Config.Version, f(sc.Shift), f(rb.SD), strconv.Itoa(r.Trials), strconv.Itoa(rb.Config.Horizon),
			strconv.Itoa(r.Rollbacks), strconv.Itoa(r.Early), f(r.FalseRate()), f(sc.FalseCI[0]), f(sc.FalseCI[1]),
			strconv.Itoa(rb.Config.Rule.DetectionWindow()), strconv.Itoa(r.InWindow), f(r.DetectionRate()), f(sc.DetectionCI[0]), f(sc.DetectionCI[1]),
			q(0.5), q(0.95)})
	}
	cw.Flush()
	return cw.Error()
}

// paramDiff describes how p differs from the base prompt's parameters.
func paramDiff(p params.Set, base params.Set) string {
	var out []string
	for _, v := range p {
		if b, ok := base.Get(v.Name); !ok || !b.Equal(v.Value) {
			out = append(out, v.Name+" "+v.Value.String())
		}
	}
	if len(out) == 0 {
		return "the base prompt's"
	}
	return strings.Join(out, ", ")
}

// weightsText formats context weights in name order.
func weightsText(cw map[string]float64) string {
	if len(cw) == 0 {
		return "none"
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(cw)) {
		out = append(out, fmt.Sprintf("%s %+g", k, cw[k]))
	}
	return strings.Join(out, ", ")
}
