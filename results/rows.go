package results

import "evolve/envs"

// Split names, the values of EpisodeRow.Split. Episodes are ordered
// train < val < test within a generation.
const (
	SplitTrain = "train" // seeds whose failures drive the mutations
	SplitVal   = "val"   // seeds on which candidates are accepted or rejected
	SplitTest  = "test"  // seeds played once, by the final version
)

// EpisodeRow is one row of episodes.parquet: one episode, that is one play of
// one prompt version from one seed.
//
// Columns: run, generation, version, split, variant, seed, repeat, score,
// cause, end_reason, then one column per metric the environment declares (see
// [WriteEpisodes]), in declared order. Only the metric columns are
// nullable.
type EpisodeRow struct {
	// Run is the run identifier (the name of the run directory under runs/).
	Run string
	// Generation is the generation, counted from 0, in which the episode was
	// played. Train and val episodes carry the generation that evaluated
	// them; the test episodes of the final version carry the number of the
	// last generation (there is no -1 or other sentinel). An INT32 column.
	Generation int32
	// Version is the prompt version that played, e.g. "v1.0.2".
	Version string
	// Split is the seed split the seed came from: SplitTrain ("train"),
	// SplitVal ("val") or SplitTest ("test"). Writers reject any other value.
	Split string
	// Variant names the environment variant of an evaluation (evolve eval
	// with variants: e.g. "max_turns=1000"); "" for a run and for an eval
	// of the configured environment alone.
	Variant string
	// Seed is the episode's seed from the frozen seed set; with the
	// environment config and the version's policy parameters it determines
	// the episode. An unsigned 64-bit INT64 column.
	Seed uint64
	// Repeat counts the plays of one seed by one version, from 0 (evolve
	// eval --repeats N plays repeats 0 to N-1 from seeds derived from Seed;
	// see eval.EpisodeSeed); 0 in a run. An INT32 column.
	Repeat int32
	// Score is the environment's episode score (envs.Outcome.Score; higher
	// is better), the statistic every test in a run is computed on. A
	// DOUBLE column: a process environment may score fractions; the
	// dungeon's integer scores are stored exactly (integers up to 2^53
	// are).
	Score float64
	// Cause is the failure cause the environment assigned: one of its
	// declared causes (the dungeon's are "injury", "combat_loss",
	// "starvation" and "entrapment"), "none" for an episode that did not
	// fail, or "error" for one that could not be played.
	Cause string
	// EndReason is why the episode ended, in the environment's words (the
	// dungeon's: "killed", "starved", "no_progress", "turn_limit",
	// "max_depth", "step_budget"), or "error". The column is end_reason,
	// not end, which is a reserved word in SQL (DuckDB cannot parse
	// SELECT end FROM ...).
	EndReason string
	// Metrics holds the environment's metrics (envs.Outcome.Metrics),
	// indexed like the []envs.Metric declaration given to [WriteEpisodes]
	// and returned by [ReadEpisodes]: Metrics[i] is the column named
	// metrics[i].Name. It has at most len(metrics) entries; a missing entry
	// (nil or short Metrics, as for an error episode) and an entry with
	// Null set are stored as null. Rows read back have exactly
	// len(metrics) entries, with Null set for nulls and, otherwise, Num
	// holding an Int, Float or Bool (0 or 1) value and Str a String value
	// (the other field zero).
	Metrics []envs.MetricValue
}

// CandidateRow is one row of candidates.parquet: one candidate version
// proposed in one generation, its val statistics and the acceptance test
// against the incumbent's val scores.
//
// Mean, Std, Median, IQM, CILow and CIHigh are in score points and are NaN
// when undefined (Std, CILow and CIHigh need N >= 2; all need N >= 1).
//
// Columns: run, generation, version, parent, operator, mutation, n, mean,
// std, median, iqm, ci_low, ci_high, test, u, v, p, p_adj, a12, accepted.
// Only v is nullable: null when the acceptance test is not signed-rank.
type CandidateRow struct {
	// Run is the run identifier.
	Run string `parquet:"run,dict"`
	// Generation is the generation, from 0, that proposed the candidate.
	Generation int32 `parquet:"generation"`
	// Version is the candidate's prompt version, e.g. "v1.0.3".
	Version string `parquet:"version,dict"`
	// Parent is the incumbent version the candidate was mutated from.
	Parent string `parquet:"parent,dict"`
	// Operator is the mutation operator's name, e.g. "threshold_adjustment".
	Operator string `parquet:"operator,dict"`
	// Mutation describes the change for a human reader, e.g.
	// "flee_hp_fraction 0.30 -> 0.40 (injury 41% of failures)".
	Mutation string `parquet:"mutation"`
	// N is the number of val episodes the candidate played, >= 0.
	N int32 `parquet:"n"`
	// Mean is the mean val score.
	Mean float64 `parquet:"mean"`
	// Std is the sample standard deviation (n-1 denominator) of the val
	// scores.
	Std float64 `parquet:"std"`
	// Median is the median val score.
	Median float64 `parquet:"median"`
	// IQM is the interquartile mean (25% trimmed mean) of the val scores.
	IQM float64 `parquet:"iqm"`
	// CILow and CIHigh bound the two-sided 95% Student t confidence interval
	// of the mean val score: mean ± t(0.975, n-1)·std/√n.
	CILow  float64 `parquet:"ci_low"`
	CIHigh float64 `parquet:"ci_high"` // upper bound of the 95% CI of the mean
	// Test is the acceptance test whose p-value is P: "mwu" (Mann-Whitney
	// U) or "signed-rank" (Wilcoxon signed-rank, paired by val seed).
	Test string `parquet:"test,dict"`
	// U is the Mann-Whitney U statistic of the candidate's val scores against
	// the incumbent's: the number of (candidate, incumbent) pairs in which
	// the candidate scored higher, ties counting one half; in
	// [0, N·n_incumbent].
	// It is recorded whatever Test is.
	U float64 `parquet:"u"`
	// V is the Wilcoxon signed-rank statistic (R's V, T+) of the
	// differences candidate − incumbent paired by val seed, in
	// [0, N(N+1)/2]; nil, stored as null, when Test is not "signed-rank"
	// (the statistic was not computed, which no number can say: 0 is a
	// possible V).
	V *float64 `parquet:"v,optional"`
	// P is the one-sided p-value of Test (alternative: the candidate's
	// scores are stochastically greater), in (0, 1].
	P float64 `parquet:"p"`
	// PAdj is P after the run's multiple-comparison correction (Holm by
	// default) over the generation's candidates, in [P, 1].
	PAdj float64 `parquet:"p_adj"`
	// A12 is the Vargha-Delaney effect size U/(N·n_incumbent), the
	// probability that a random candidate episode outscores a random
	// incumbent episode (ties count one half), in [0, 1]; 0.5 means no
	// effect.
	A12 float64 `parquet:"a12"`
	// Accepted reports whether this candidate became the next incumbent. At
	// most one candidate per generation is accepted.
	Accepted bool `parquet:"accepted"`
	// Look is the look of a group-sequential gate (acceptance.sequential)
	// the candidate stopped at, in [1, looks], N being its val episodes
	// then; nil, stored as null, without interim looks.
	Look *int32 `parquet:"look,optional"`
	// Stop says why a group-sequential gate stopped the candidate:
	// "efficacy" (its statistic reached the boundary), "futility" (it fell
	// below the futility bound at an interim look) or "final" (the last
	// look, without crossing); "" without interim looks.
	Stop string `parquet:"stop,dict"`
	// Proposer is the proposer family that proposed the candidate
	// (mutation.proposer): "failure", "random" or "cmaes".
	Proposer string `parquet:"proposer,dict"`
}

// GenerationRow is one row of generations.parquet: one generation of a run,
// its incumbent's train failures and val statistics, and the decision.
//
// Columns: run, generation, incumbent, n_train, n_val, train_mean, val_mean,
// val_median, val_iqm, val_ci_low, val_ci_high, failures, then one INT32
// column per failure cause the environment declares (see
// [WriteGenerations]; for the dungeon injury, combat_loss, starvation,
// entrapment), then n_candidates, accepted, accepted_p, next_incumbent,
// episodes_used.
// accepted and accepted_p are nullable: null when no candidate was
// accepted.
type GenerationRow struct {
	// Run is the run identifier.
	Run string
	// Generation is the generation number, from 0.
	Generation int32
	// Incumbent is the version evaluated as incumbent in this generation.
	Incumbent string
	// NTrain and NVal are the numbers of train and val episodes the
	// incumbent played in this generation, >= 0.
	NTrain int32
	NVal   int32 // number of val episodes of the incumbent
	// TrainMean is the incumbent's mean train score (NaN if NTrain is 0).
	TrainMean float64
	// ValMean, ValMedian and ValIQM are the incumbent's mean, median and
	// interquartile mean val score (NaN if NVal is 0).
	ValMean   float64
	ValMedian float64 // median val score
	ValIQM    float64 // 25% trimmed mean of the val scores
	// ValCILow and ValCIHigh bound the two-sided 95% Student t confidence
	// interval of the incumbent's mean val score (NaN if NVal < 2).
	ValCILow  float64
	ValCIHigh float64 // upper bound of the 95% CI
	// Failures is the number of the incumbent's train episodes that
	// failed (whose cause is not "none"), >= the sum of CauseCounts; any
	// excess counts failures of no declared cause (such as error
	// episodes, if the caller counts them as failures).
	Failures int32
	// CauseCounts counts the incumbent's train episodes per declared
	// failure cause, indexed like the []envs.Cause declaration given to
	// [WriteGenerations] and returned by [ReadGenerations]; each >= 0. It
	// has len(causes) entries, or is nil, which stands for all zeros;
	// rows read back have exactly len(causes) entries.
	CauseCounts []int32
	// NCandidates is the number of candidates proposed and evaluated, >= 0.
	NCandidates int32
	// Accepted is the accepted candidate's version; "" if none was
	// accepted, which is stored as null (and a null reads back as "").
	Accepted string
	// AcceptedP is the Holm-adjusted p-value (CandidateRow.PAdj) of the
	// accepted candidate, in (0, 1]; nil, stored as null, if none was
	// accepted.
	AcceptedP *float64
	// NextIncumbent is the incumbent of the next generation: Accepted if a
	// candidate was accepted, else Incumbent.
	NextIncumbent string
	// EpisodesUsed is the run's cumulative count of train and val
	// episodes at the end of this generation, the base version's val
	// phase included (what budget.episodes bounds), >= 0.
	EpisodesUsed int64
}
