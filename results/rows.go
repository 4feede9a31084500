package results

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
// Columns: run, generation, version, split, seed, score, cause, end_reason,
// depth, turns, kills, gold, xl, killed_by, turns_explore, turns_descend,
// turns_attack, turns_flee, turns_eat, turns_quaff, turns_wait. None is
// nullable.
type EpisodeRow struct {
	// Run is the run identifier (the name of the run directory under runs/).
	Run string `parquet:"run,dict"`
	// Generation is the generation, counted from 0, in which the episode was
	// played. Train and val episodes carry the generation that evaluated
	// them; the test episodes of the final version carry the number of the
	// last generation (there is no -1 or other sentinel).
	Generation int32 `parquet:"generation"`
	// Version is the prompt version that played, e.g. "v1.0.2".
	Version string `parquet:"version,dict"`
	// Split is the seed split the seed came from: SplitTrain ("train"),
	// SplitVal ("val") or SplitTest ("test"). Writers reject any other value.
	Split string `parquet:"split,dict"`
	// Seed is the episode's seed from the frozen seed set; with the
	// environment config and the version's policy parameters it determines
	// the episode.
	Seed uint64 `parquet:"seed"`
	// Score is the environment's episode score in points (higher is better);
	// the statistic every test in a run is computed on.
	Score int64 `parquet:"score"`
	// Cause is the failure cause the failure taxonomy assigned: "injury",
	// "combat_loss", "starvation", "entrapment", or "none" for an episode that
	// did not fail.
	Cause string `parquet:"cause,dict"`
	// EndReason is why the episode ended: "killed", "starved",
	// "no_progress", "turn_limit", "max_depth", "step_budget" or "panic".
	// The column is end_reason, not end, which is a reserved word in SQL
	// (DuckDB cannot parse SELECT end FROM ...).
	EndReason string `parquet:"end_reason,dict"`
	// Depth is the deepest dungeon level reached, from 1.
	Depth int32 `parquet:"depth"`
	// Turns is the number of game turns played, >= 0.
	Turns int32 `parquet:"turns"`
	// Kills is the number of monsters the agent killed, >= 0.
	Kills int32 `parquet:"kills"`
	// Gold is the gold pieces held at the end, >= 0.
	Gold int32 `parquet:"gold"`
	// XL is the experience level at the end, from 1.
	XL int32 `parquet:"xl"`
	// KilledBy names the monster that killed the agent, "" if it was not
	// killed by a monster.
	KilledBy string `parquet:"killed_by,dict"`
	// TurnsExplore .. TurnsWait count the turns in which the agent chose each
	// action; each is >= 0 and their sum is at most Turns.
	TurnsExplore int32 `parquet:"turns_explore"`
	TurnsDescend int32 `parquet:"turns_descend"` // turns spent descending stairs
	TurnsAttack  int32 `parquet:"turns_attack"`  // turns spent attacking
	TurnsFlee    int32 `parquet:"turns_flee"`    // turns spent fleeing
	TurnsEat     int32 `parquet:"turns_eat"`     // turns spent eating
	TurnsQuaff   int32 `parquet:"turns_quaff"`   // turns spent quaffing potions
	TurnsWait    int32 `parquet:"turns_wait"`    // turns spent waiting or resting
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
}

// GenerationRow is one row of generations.parquet: one generation of a run,
// its incumbent's train failures and val statistics, and the decision.
//
// Columns: run, generation, incumbent, n_train, n_val, train_mean, val_mean,
// val_median, val_iqm, val_ci_low, val_ci_high, failures, injury,
// combat_loss, starvation, entrapment, n_candidates, accepted, accepted_p,
// next_incumbent. accepted and accepted_p are nullable: null when no
// candidate was accepted.
type GenerationRow struct {
	// Run is the run identifier.
	Run string `parquet:"run,dict"`
	// Generation is the generation number, from 0.
	Generation int32 `parquet:"generation"`
	// Incumbent is the version evaluated as incumbent in this generation.
	Incumbent string `parquet:"incumbent,dict"`
	// NTrain and NVal are the numbers of train and val episodes the
	// incumbent played in this generation, >= 0.
	NTrain int32 `parquet:"n_train"`
	NVal   int32 `parquet:"n_val"` // number of val episodes of the incumbent
	// TrainMean is the incumbent's mean train score in points (NaN if
	// NTrain is 0).
	TrainMean float64 `parquet:"train_mean"`
	// ValMean, ValMedian and ValIQM are the incumbent's mean, median and
	// interquartile mean val score in points (NaN if NVal is 0).
	ValMean   float64 `parquet:"val_mean"`
	ValMedian float64 `parquet:"val_median"` // median val score
	ValIQM    float64 `parquet:"val_iqm"`    // 25% trimmed mean of the val scores
	// ValCILow and ValCIHigh bound the two-sided 95% Student t confidence
	// interval of the incumbent's mean val score (NaN if NVal < 2).
	ValCILow  float64 `parquet:"val_ci_low"`
	ValCIHigh float64 `parquet:"val_ci_high"` // upper bound of the 95% CI
	// Failures is the number of the incumbent's train episodes whose cause
	// is not "none"; it equals Injury+CombatLoss+Starvation+Entrapment.
	Failures int32 `parquet:"failures"`
	// Injury, CombatLoss, Starvation and Entrapment count the incumbent's
	// train episodes per failure cause.
	Injury     int32 `parquet:"injury"`
	CombatLoss int32 `parquet:"combat_loss"` // train episodes failed by combat loss
	Starvation int32 `parquet:"starvation"`  // train episodes failed by starvation
	Entrapment int32 `parquet:"entrapment"`  // train episodes failed by entrapment
	// NCandidates is the number of candidates proposed and evaluated, >= 0.
	NCandidates int32 `parquet:"n_candidates"`
	// Accepted is the accepted candidate's version; "" if none was
	// accepted, which is stored as null (and a null reads back as "").
	Accepted string `parquet:"accepted,optional,dict"`
	// AcceptedP is the Holm-adjusted p-value (CandidateRow.PAdj) of the
	// accepted candidate, in (0, 1]; nil, stored as null, if none was
	// accepted.
	AcceptedP *float64 `parquet:"accepted_p,optional"`
	// NextIncumbent is the incumbent of the next generation: Accepted if a
	// candidate was accepted, else Incumbent.
	NextIncumbent string `parquet:"next_incumbent,dict"`
}

// generationRecord is how a GenerationRow is stored: the same columns with
// the same tags, but Accepted is a pointer, nil for "". parquet-go v0.32.0
// does not reliably write the zero value of a non-pointer optional string
// as null (on amd64, a "" following a non-empty value in one batch was
// written as ""), so the nullable column is a pointer here;
// TestGenerationRecordColumns keeps the two types' columns equal.
type generationRecord struct {
	Run           string   `parquet:"run,dict"`
	Generation    int32    `parquet:"generation"`
	Incumbent     string   `parquet:"incumbent,dict"`
	NTrain        int32    `parquet:"n_train"`
	NVal          int32    `parquet:"n_val"`
	TrainMean     float64  `parquet:"train_mean"`
	ValMean       float64  `parquet:"val_mean"`
	ValMedian     float64  `parquet:"val_median"`
	ValIQM        float64  `parquet:"val_iqm"`
	ValCILow      float64  `parquet:"val_ci_low"`
	ValCIHigh     float64  `parquet:"val_ci_high"`
	Failures      int32    `parquet:"failures"`
	Injury        int32    `parquet:"injury"`
	CombatLoss    int32    `parquet:"combat_loss"`
	Starvation    int32    `parquet:"starvation"`
	Entrapment    int32    `parquet:"entrapment"`
	NCandidates   int32    `parquet:"n_candidates"`
	Accepted      *string  `parquet:"accepted,optional,dict"`
	AcceptedP     *float64 `parquet:"accepted_p,optional"`
	NextIncumbent string   `parquet:"next_incumbent,dict"`
}

// record converts g to its stored form.
func (g *GenerationRow) record() generationRecord {
	r := generationRecord{
		Run: g.Run, Generation: g.Generation, Incumbent: g.Incumbent, NTrain: g.NTrain, NVal: g.NVal,
		TrainMean: g.TrainMean, ValMean: g.ValMean, ValMedian: g.ValMedian, ValIQM: g.ValIQM,
		ValCILow: g.ValCILow, ValCIHigh: g.ValCIHigh, Failures: g.Failures, Injury: g.Injury,
		CombatLoss: g.CombatLoss, Starvation: g.Starvation, Entrapment: g.Entrapment,
		NCandidates: g.NCandidates, AcceptedP: g.AcceptedP, NextIncumbent: g.NextIncumbent,
	}
	if g.Accepted != "" {
		r.Accepted = &g.Accepted
	}
	return r
}

// row converts a stored record back; a null accepted becomes "".
func (r *generationRecord) row() GenerationRow {
	g := GenerationRow{
		Run: r.Run, Generation: r.Generation, Incumbent: r.Incumbent, NTrain: r.NTrain, NVal: r.NVal,
		TrainMean: r.TrainMean, ValMean: r.ValMean, ValMedian: r.ValMedian, ValIQM: r.ValIQM,
		ValCILow: r.ValCILow, ValCIHigh: r.ValCIHigh, Failures: r.Failures, Injury: r.Injury,
		CombatLoss: r.CombatLoss, Starvation: r.Starvation, Entrapment: r.Entrapment,
		NCandidates: r.NCandidates, AcceptedP: r.AcceptedP, NextIncumbent: r.NextIncumbent,
	}
	if r.Accepted != nil {
		g.Accepted = *r.Accepted
	}
	return g
}
