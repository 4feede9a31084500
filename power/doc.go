// Package power plans how many seeds a statistical decision of evolve
// needs: for a pilot (the scores of a baseline and a candidate) or a target
// effect, it finds the number of observations per side at which a test
// reaches power 1 − β at level α, and the power curve against n.
//
// # Steps
//
//  1. [Plan] takes a [Pilot] (baseline and candidate scores, paired by
//     index or not) and a [Config], and for each [Design] (the U test, the
//     signed-rank test, the gate's non-inferiority tests on a shift and on
//     the mean, and any design the caller adds, such as a group-sequential
//     one, through its Decide function) computes:
//     - the n of Noether's (1987) formula where one exists (a check), and
//     - the n found by simulation that resamples the pilot's empirical
//     scores (stats.SimulatedPower; Collings and Hamilton 1988), which
//     holds for any score distribution, ties included.
//  2. [Curve] gives the simulated power at a grid of n for a design, and
//     [Figure] draws the curves of several designs (gonum/plot).
//
// Simulations use an explicit seeded source (Config.Seed) with common
// random numbers across n, so results are reproducible and curves smooth.
package power
