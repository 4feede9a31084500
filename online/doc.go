// Package online selects among live prompt versions per request and
// learns from observations: context-aware epsilon-greedy selection, the
// observation score, exponentially weighted edge weights and the
// auto-rollback detector. It is pure and seeded: no clock, no files, no
// global random source. The prompt store keeps the weights and the
// observation log they replay from (store.Store.Observe), and evolve
// serve puts both behind HTTP (package serve).
//
// The steps of one interaction, from the graph prompt design
// ("Context-Aware Selection" through "Auto-Rollback"):
//
//  1. the caller's context signals are checked against a declared set
//     (CheckSignals; DefaultSignals is the design's table, and a store or
//     a study declares its own in a signal table file read by
//     ParseSignals and StoreSignals);
//  2. each variant scores TotalScore = 0.5 weight + 0.5 ContextFit, or its
//     weight alone without context weights;
//  3. EpsilonGreedy picks one: with probability epsilon a uniform variant
//     (explore), else the best score (exploit), reproducibly from (seed,
//     request number);
//  4. the interaction's Observation (sentiment, corrections, success)
//     becomes a score in [0, 1];
//  5. EMA moves the chosen variant's weight toward the score;
//  6. a Detector per version compares its recent scores with its own
//     baseline and says when the version should be rolled back (see
//     RollbackRule for the rule and its derivation).
package online
