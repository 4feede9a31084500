// Package agent holds the agents that act in an environment under a
// prompt's policy parameters: today the scripted policy agent, whose five
// skills (explore, fight, flee, eat, use_item) are chosen each turn in the
// order of skill_priority, under the thresholds, limits and risk tolerance
// of the parameters.
package agent
