// Package dungeon is the built-in environment: a small, seeded,
// NetHack-like roguelike in which the policy parameters matter and the four
// failure causes (injury, combat loss, starvation, entrapment) arise
// naturally.
//
// A level is NetHack's 80x21 grid of up to nine lit rooms joined by
// corridors, with dead ends and one down staircase, generated from
// (episode seed, depth) alone. Monsters come from a NetHack 3.6 table whose
// difficulty grows with depth and experience level; they sleep, notice the
// hero, chase and attack with NetHack's to-hit rule. Hunger follows NetHack
// 3.6's eat.c (900 nutrition at the start, 1 a turn, fainting at 0 or less,
// starvation below -(100 + 10 x Con)), HP regeneration its allmain.c, and
// the score its end.c (see Score).
//
// An episode ends when the hero dies (monster or starvation), reaches the
// turn limit or the deepest level, or makes no progress (no new tile seen,
// no descent) for Config.NoProgressTurns turns. Importing the package
// registers it with envs under the name "dungeon".
//
// The simulation allocates nothing per step: an episode owns fixed arrays
// that Reset reuses.
package dungeon
