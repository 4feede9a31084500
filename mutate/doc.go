// Package mutate proposes candidate prompt versions: from a failure
// analysis (the structured, text and LLM rule operators, the proposer
// evolve exists for) or, for ablations, without one (the random and CMA-ES
// baselines below). Its operators work on any declared parameter schema (package
// params): a Number or Integer moves by its step within its range, an
// Enum to its next or previous item, an Ordering has an item moved to the
// front or back or is rotated. Each is a deterministic function from
// parameters to new parameters and a human-readable description.
//
// For an agent that reads text, the text operators (ProposeText) edit
// the words a model reads: a rule line from a library keyed by failure
// cause added, replaced or removed (in rules_constraints or in the
// cause's home section), and a section moved earlier in the declared
// order. They write only library text, screened by the guard, and never
// change a frozen section (render.FrozenSections). ProposeLLMRule asks a
// language model for one rule line from the failure analysis instead of
// the library (operator OpLLMRule); its reply is cleaned, screened by the
// same guard and placed like a library rule.
//
// Which operator answers which failure cause is a table, not code: a
// config's mutation.remedies, or the environment's default
// (envs.Info.Remedies; the dungeon's is the reference design's: injury →
// health_threshold+, combat_loss → prioritize skill_priority flee,
// starvation → hunger_threshold-, entrapment → max_exploration_steps+, ...).
//
// The proposer's steps, in order:
//  1. rank the failure causes by count (failure.Analysis.Ranked);
//  2. list each cause's remedies, most direct first;
//  3. take remedies round-robin across the ranked causes, skipping any
//     whose result equals the current parameters or an earlier candidate,
//     and (Composed, given the incumbent's parent) any that undoes the
//     incumbent's last accepted change (Undoes) without new evidence: the
//     incumbent must score lower than its parent on the train seeds,
//     which the acceptance did not see (NewEvidence);
//  4. stop at k candidates, filling up from the fill list if needed.
//
// Two baseline proposers ignore the failures, for ablations
// (mutation.proposer, docs/proposers.md): Random draws k parameter sets
// uniformly from the schema, and CMAES runs CMA-ES (gonum's CmaEsChol)
// over the numeric parameters in [0, 1]-normalised space, one CMA-ES
// iteration per generation, re-derived each generation by replaying the
// recorded val means. Both are seeded explicitly and deterministic.
package mutate
