// Package bandit is the offline bandit study of online selection on the
// dungeon (evolve bandit simulate): it compares the seed's context-aware
// epsilon-greedy (package online) with UCB1, Thompson sampling, textbook
// epsilon-greedy and a uniform baseline by their cumulative regret, on
// the same request streams, and measures how fast online.Detector rolls
// back a version whose scores drop, and how often it rolls back one that
// did not change.
//
// The steps of Run, in order:
//
//  1. Contexts are dungeon configurations (the dungeon's knobs: its turn
//     limit, winning depth and no-progress limit; DefaultContexts), each
//     mapped to the study's declared signals (Signals: time_pressure,
//     goal_near, stall_risk). Versions are policy-parameter sets derived
//     from the base prompt, each with hand-set context weights
//     (DefaultVersions).
//  2. PlayTable plays every version in every context on every seed of the
//     pool (the first Config.Pool seeds of the embedded test split) with
//     play.Runner. A reward is the episode's score divided by the
//     context's highest score, in [0, 1].
//  3. Stream draws, per repeat, each request's context and episode seed
//     from a PCG generator seeded with (Config.Seed, repeat). Every
//     policy plays every stream; its reward is looked up in the table, so
//     all policies meet the same episodes (common random numbers).
//  4. A request's regret is the pseudo-regret: the context's best mean
//     reward minus the chosen version's. Cumulative regret after the last
//     request is summarised per policy over the repeats (mean, 95%
//     Student-t CI) and paired with the seed's on the same streams.
//  5. The rollback study runs online.RollbackStudy on one version's
//     rewards in the stream, with its scores lowered by 0, 0.5, 1 and 2
//     standard deviations after a change point: the false rollback rate
//     (shift 0), the detection rate within the rule's detection window,
//     and the delay (median, 95th percentile).
//
// WriteDir writes the result: rewards.parquet (the table), regret.parquet
// (every request of every stream and policy), summary.md, summary.csv,
// rollback.csv, signals.yaml (the study's signal table, in the format of
// a prompt store's, online.ParseSignals) and regret.png/svg (mean
// cumulative regret with 95% CI bands).
//
// # Determinism
//
// Randomness comes only from PCG generators seeded from Config.Seed and
// the repeat, policy or trial (never the global source, never the
// clock), and work is collected by index, so the result and every file
// are the same for the same Config whatever Config.Workers is.
package bandit
