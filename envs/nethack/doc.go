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
// (xlogfile points); killed_by is the game's own death text. Classify
// decides each episode's failure cause from the game's own evidence (an
// Evidence: the death text and its "while", the hunger state, how the
// episode ended, the last screen and messages), and the column
// cause_evidence says what it read; nle_score is NLE's score (NLEScore).
// Config.UntilDeath plays every game to its end with NLE's step caps, and
// Config's Role, Race, Gender and Alignment choose the character
// (Character; Random is NLE's "@"). The LLM agent reads a View each
// action: the turn's messages with every --More-- page, a message
// history, the inventory (read with i when it may have changed, at no
// game time) and the hero's position; its transcript is stored beside the
// asciicast. Playgrounds left by a process killed with SIGKILL are swept,
// by owner pid, by the next process.
//
// See docs/nethack.md for what is fixed, the character, the taxonomy,
// the parameters' mapping, speed and the licence.
package nethack
