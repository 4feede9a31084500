// Package failure analyses a batch of episodes by failure cause: the
// causes an environment declares (envs.Info.Causes; the dungeon's are
// injury, combat_loss, starvation and entrapment), plus envs.CauseNone for
// an episode that did not fail and envs.CauseError for one that could not
// be played. Classifying one episode is the environment's job (it reports
// the cause in its Outcome); this package counts, rates and ranks them,
// the input of the mutation proposer.
package failure
