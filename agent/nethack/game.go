package nethack

import nh "evolve/envs/nethack"

// Screen and Status are the game's screen and status line (package
// envs/nethack), which the player reads each action; the aliases let the
// player say Screen as the game does, as package os says FileInfo for
// io/fs's.
type (
	Screen = nh.Screen
	Status = nh.Status
)

// MapRows and Cols are the game's map rows and terminal columns (package
// envs/nethack).
const (
	MapRows = nh.MapRows
	Cols    = nh.Cols
)
