// Package nethack is the environment "nethack": the real NetHack 3.6 of
// package envs/nethack (Debian's nethack-console 3.6.6 by default, under
// a pseudo-terminal, seeded and isolated) played by a scripted agent
// driven by the prompt's policy parameters (Schema, with Remedies for its
// failure causes) or by a language model.
//
// Env registers as "nethack" and makes a Player per worker; each episode
// is one game process (envs/nethack's Game) in the player's private
// playground directory, killed at the end of the episode. The play loop
// answers the game's --More--, menus and prompts and asks the policy for
// every other action. The score is the game's own final score (xlogfile
// points); killed_by is the game's own death text. The game's Classify
// decides each episode's failure cause from the game's own evidence (an
// Evidence: the death text and its "while", the hunger state, how the
// episode ended, the last screen and messages), and the column
// cause_evidence says what it read; nle_score is NLE's score (NLEScore).
// Config.UntilDeath plays every game to its end with NLE's step caps, and
// Config's Role, Race, Gender and Alignment choose the character
// (envs/nethack's Character; Random is NLE's "@"). The LLM agent reads a
// View each action: the turn's messages with every --More-- page, a
// message history, the inventory (read with i when it may have changed,
// at no game time) and the hero's position; its transcript is stored
// beside the asciicast.
//
// See docs/nethack.md for what is fixed, the character, the taxonomy,
// the parameters' mapping, speed and the licence.
package nethack
