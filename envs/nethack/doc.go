// Package nethack is the real NetHack 3.6 game (Debian's nethack-console
// 3.6.6 by default) under a pseudo-terminal, seeded and isolated, with
// what it shows and how its episodes end; it knows no agent (package
// agent/nethack plays it as the environment "nethack").
//
// Prepare finds the game and builds its preload shim (csrc/shim.c,
// compiled with the system C compiler into a cache directory); StartGame
// runs one game in a playground directory (Install.NewPlayground) under
// an 80×24 pty with the shim, which draws the game's /dev/urandom bytes
// from the episode seed, fixes its clock at FixedTime, and marks each
// read of a key, so that a player reads exactly up to the point where the
// game waits. The output is parsed by a terminal emulator (hinshun/vt10x)
// into a Screen: the message line, the map, the status lines (Status).
// Character chooses the hero. Classify decides an episode's failure cause
// from the game's own evidence (an Evidence: the death text and its
// "while", the hunger state, how the episode ended, the last screen and
// messages). A Recorder keeps a game's output as an asciicast, which
// Replay turns back into the last screen. Playgrounds left by a process
// killed with SIGKILL are swept, by owner pid, by the next process
// (SweepStale).
//
// See docs/nethack.md for what is fixed, the character, the taxonomy,
// speed and the licence.
package nethack
