// Package nethack is the environment "nethack": the real NetHack 3.6
// (Debian's nethack-console 3.6.6 by default) played under a
// pseudo-terminal, seeded and isolated, by a scripted agent driven by the
// prompt's policy parameters (Schema, with Remedies for its failure
// causes) or by a language model.
//
// Each episode is one game process: started under an 80×24 pty with a
// preload shim (csrc/shim.c, compiled with the system C compiler into a
// cache directory) that draws the game's /dev/urandom bytes from the
// episode seed, fixes its clock at FixedTime, and marks each read of a
// key, so that the player reads exactly up to the point where the game
// waits. The output is parsed by a terminal emulator (hinshun/vt10x) into
// a Screen: the message line, the map, the status lines. Each player has
// a private playground directory; the game's process group is killed at
// the end of every episode. The score is the game's own final score
// (xlogfile points); killed_by is the game's own death text.
//
// See docs/nethack.md for what is fixed, the character, the taxonomy,
// the parameters' mapping, speed and the licence.
package nethack
