// Package failure is the failure taxonomy of evolve: it classifies one
// episode's outcome into a failure cause (injury, combat_loss, starvation,
// entrapment) or none, and analyses a batch of episodes into counts and
// rates per cause, the input of the mutation proposer.
package failure
