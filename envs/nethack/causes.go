package nethack

import (
	"fmt"
	"strings"

	"evolve/envs"
)

// Evidence is what an episode's failure cause is decided from: the game's
// own record of its end and what its screens showed, gathered by the play
// loop. Classify is a pure function of it, so a stored Evidence is
// re-classified without replaying the game (testdata/causes.jsonl).
type Evidence struct {
	// End is how the play loop ended the game: EndStuck, EndTurnCap or
	// EndActionCap when evolve quit it, "" when the game ended itself.
	End string `json:"end"`
	// Death is the xlogfile's death field, the game's own words: "killed
	// by a jackal", "died of starvation", "quit", "escaped".
	Death string `json:"death"`
	// While is the xlogfile's while field: why the hero was helpless
	// when the game ended ("praying", "fainted from lack of food",
	// "frozen by a monster's gaze", "helpless"), "" if it was not. The
	// game's record and tombstone join it to Death as ", while ...".
	While string `json:"while,omitempty"`
	// Hunger is the hunger state of the last status line read: "",
	// "Satiated", "Hungry", "Weak", "Fainting" or "Fainted".
	Hunger string `json:"hunger"`
	// Dlvl and T are the dungeon level and game turn of the last status
	// line read.
	Dlvl int `json:"dlvl"`
	T    int `json:"t"`
	// SinceAttack is the number of actions from the agent's last chosen
	// attack to the end (0: the last action was an attack), -1 if it never
	// attacked.
	SinceAttack int `json:"since_attack"`
	// StallTurns and StallActions are the game turns and agent actions
	// since the last progress (a new square seen or stood on, a descent).
	StallTurns   int `json:"stall_turns"`
	StallActions int `json:"stall_actions"`
	// ByActions is true when the stall detector fired on actions (twice
	// no_progress_turns actions without progress) before turns: the
	// agent's last actions took no game time.
	ByActions bool `json:"by_actions,omitempty"`
	// Pet is the pet's letter, "f" (kitten) or "d" (little dog): the one
	// next to the hero on the first screen the agent acted on; "" if
	// neither was.
	Pet string `json:"pet,omitempty"`
	// Trap is the last message that a trap holds the hero (trapMessages)
	// seen on level Dlvl, "" if none; TrapT is its game turn.
	Trap  string `json:"trap,omitempty"`
	TrapT int    `json:"trap_t,omitempty"`
	// PromptRun and LostRun count the agent's last consecutive actions
	// taken while the game waited on an answer (waitsForAnswer) and while
	// the hero was not shown (heroHidden).
	PromptRun int `json:"prompt_run"`
	LostRun   int `json:"lost_run"`
	// Screen is the last screen the agent acted on (Screen.String: 24
	// lines), with its cursor (0-based column and row); "" if it never
	// acted.
	Screen  string `json:"screen"`
	CursorX int    `json:"cursor_x"`
	CursorY int    `json:"cursor_y"`
}

// DeathText returns the game's full death text, as its record and
// tombstone show it: Death, and ", while " While if the hero was
// helpless, e.g. "killed by a jackal, while fainted from lack of food".
func (ev Evidence) DeathText() string {
	if ev.While == "" || ev.Death == "quit" || ev.Death == "escaped" {
		return ev.Death
	}
	return ev.Death + ", while " + ev.While
}

// trapMessages are the message-line texts that say a trap holds the hero
// (NetHack 3.6's trap.c: dotrap and trapmove).
var trapMessages = []string{
	"bear trap closes on", "caught in a bear trap", "You fall into a pit", "You fall into your pit",
	"You land on a set of sharp iron spikes", "still in a pit", "You stumble into a spider web",
	"stuck to the web", "You are stuck in the", "You are caught in",
}

// TrapMessage returns the trap message on message line m, "" if none.
func TrapMessage(m string) string {
	for _, w := range trapMessages {
		if strings.Contains(m, w) {
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), "--More--"))
		}
	}
	return ""
}

// WaitsForAnswer reports whether the game, on a screen where the agent
// was asked to act, was in fact waiting on an answer rather than a
// command. When NetHack reads a command the cursor rests on the hero;
// when it reads an answer the cursor follows the typed text on the
// message line. So: the cursor is on the message line (a text prompt such
// as "Call a white potion:", or a question); or the message line is full
// (NetHack's tty wraps a long answer at column 79 onto the map rows) and
// the cursor, in the rows below it, is not on an '@'; or the message line asks for a map position
// ("Where do you want to travel to?", "Pick an object").
func WaitsForAnswer(s *Screen) bool {
	if s.CursorY == 0 {
		return true
	}
	if s.CursorY <= 3 && s.CursorX >= 0 && s.CursorX < Cols && s.Grid[s.CursorY][s.CursorX] != '@' && len(s.Row(0)) >= Cols-1 {
		return true
	}
	m := s.Message()
	return strings.HasPrefix(m, "Where do you want") || strings.HasPrefix(m, "Pick ")
}

// HeroHidden reports whether the hero is not shown as '@' on a screen
// where the game reads a command: the cursor, which rests on the hero,
// is on the map over another glyph (polymorphed, e.g. into a wererat 'r';
// or an unseen square when invisible).
func HeroHidden(s *Screen) bool {
	if s.CursorY < 1 || s.CursorY > MapRows || s.CursorX < 0 || s.CursorX >= Cols {
		return false
	}
	return s.Grid[s.CursorY][s.CursorX] != '@'
}

// hazardWords mark a death by the dungeon rather than a monster.
var hazardWords = []string{"trap", "drown", "chok", "falling", "corpse", "boulder", "lava", "poisonous", "acidic", "fell into", "kicking"}

// Classify returns the cause of an episode with evidence ev and the
// evidence it was decided on (the column cause_evidence). The rules, in
// order, the first that matches deciding:
//
// A death (the game ended itself, Death not "quit" or "escaped"):
//  1. starvation: Death contains "starv" or "lack of food", or Hunger
//     is Fainting or Fainted;
//  2. prayer: Death contains "wrath of" or "while praying";
//  3. helpless: Death contains ", while " (NetHack's reason for a
//     helpless hero: "frozen by a monster's gaze", "sleeping", ...);
//  4. hazard: Death contains one of hazardWords;
//  5. combat_loss: the agent attacked at most 3 actions before the end;
//  6. injury: otherwise.
//
// End EndActionCap: action_cap. End EndTurnCap, or an escape: none.
// End EndStuck (the stall detector):
//  7. unanswered_prompt: the last screen acted on waited on an answer
//     (waitsForAnswer);
//  8. hero_lost: it did not show the hero (heroHidden);
//  9. starvation: Hunger is Fainting or Fainted;
//  10. trapped: a trap held the hero on the last level (Trap);
//  11. action_loop: the stall detector fired on actions, not turns
//     (ByActions: the agent repeated commands the game refused or
//     cancelled, e.g. declining a floor corpse to eat);
//  12. standoff: a monster stands next to the hero (besideMonster), or
//     the last message says the hero attacked a statue (which shows as
//     a monster letter);
//  13. no_path: otherwise.
func Classify(ev Evidence) (cause, evidence string) {
	d := ev.DeathText()
	fainting := ev.Hunger == "Fainting" || ev.Hunger == "Fainted"
	switch {
	case ev.End == EndActionCap:
		return "action_cap", fmt.Sprintf("end: the agent's action budget ran out at T:%d", ev.T)
	case ev.End == EndTurnCap:
		return envs.CauseNone, fmt.Sprintf("end: turn cap at T:%d", ev.T)
	case d == "escaped":
		return envs.CauseNone, "death: escaped"
	case ev.End == EndStuck || d == "quit":
		return classifyStall(ev, fainting)
	}
	switch {
	case strings.Contains(d, "starv") || strings.Contains(d, "lack of food"):
		return "starvation", "death: " + d
	case fainting:
		return "starvation", fmt.Sprintf("status: %s at death (%s)", ev.Hunger, d)
	case strings.Contains(d, "wrath of") || strings.Contains(d, "while praying"):
		return "prayer", "death: " + d
	case strings.Contains(d, ", while "):
		return "helpless", "death: " + d
	}
	for _, w := range hazardWords {
		if strings.Contains(d, w) {
			return "hazard", "death: " + d
		}
	}
	if ev.SinceAttack >= 0 && ev.SinceAttack <= 3 {
		return "combat_loss", fmt.Sprintf("death: %s, %d actions after an attack", d, ev.SinceAttack)
	}
	return "injury", "death: " + d
}

// classifyStall is Classify for an episode the stall detector ended.
func classifyStall(ev Evidence, fainting bool) (cause, evidence string) {
	stall := fmt.Sprintf("%d turns and %d actions without progress on Dlvl %d", ev.StallTurns, ev.StallActions, ev.Dlvl)
	if ev.Screen != "" {
		s := ScreenFromText(ev.Screen, ev.CursorX, ev.CursorY)
		if WaitsForAnswer(s) {
			return "unanswered_prompt", fmt.Sprintf("prompt: %q, the last %d actions typed into it; %s", s.Message(), ev.PromptRun, stall)
		}
		if HeroHidden(s) {
			return "hero_lost", fmt.Sprintf("hero: the cursor rests on %q, not @, for the last %d actions; %s",
				s.Grid[s.CursorY][s.CursorX], ev.LostRun, stall)
		}
	}
	if fainting {
		return "starvation", fmt.Sprintf("status: %s; %s", ev.Hunger, stall)
	}
	if ev.Trap != "" {
		return "trapped", fmt.Sprintf("trap: %q at T:%d; %s", ev.Trap, ev.TrapT, stall)
	}
	s := ScreenFromText(ev.Screen, ev.CursorX, ev.CursorY)
	if ev.ByActions {
		return "action_loop", fmt.Sprintf("actions: the last actions took no game time (last message %q); %s", s.Message(), stall)
	}
	if m := s.Message(); strings.Contains(m, "attack a statue") {
		return "standoff", fmt.Sprintf("statue: %q (a statue shows as a monster letter); %s", m, stall)
	}
	if c, ok := besideMonster(s, ev.Pet); ok {
		return "standoff", fmt.Sprintf("monster: %q beside the hero; %s", c, stall)
	}
	stairs := "no > on the map"
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if s.MapCell(x, y) == '>' {
				stairs = "a > on the map"
			}
		}
	}
	return "no_path", fmt.Sprintf("%s; %s", stall, stairs)
}

// besideMonster returns a monster glyph next to the hero (the cursor) on
// s: a letter, '@', '&', ':' or ';', other than the pet's letter pet
// (the Valkyrie's kitten grows into a housecat and a large cat, all 'f';
// the little dog into a dog, 'd'). With pet "" both 'f' and 'd' are
// taken for the pet.
func besideMonster(s *Screen, pet string) (rune, bool) {
	hx, hy := s.CursorX, s.CursorY-1
	if hy < 0 || hy >= MapRows {
		return 0, false
	}
	for d := 0; d < 8; d++ {
		c := s.MapCell(hx+DirDX[d], hy+DirDY[d])
		if pet == "" && (c == 'f' || c == 'd') || pet != "" && string(c) == pet {
			continue
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '&' || c == ':' || c == ';' {
			return c, true
		}
	}
	return 0, false
}

// ScreenFromText parses Screen.String's text back into a Screen with the
// cursor at (x, y): lines beyond Rows and characters beyond Cols are
// dropped, missing ones are blank.
func ScreenFromText(text string, x, y int) *Screen {
	s := &Screen{CursorX: x, CursorY: y}
	lines := strings.Split(text, "\n")
	for r := 0; r < Rows; r++ {
		c := 0
		if r < len(lines) {
			for _, ch := range lines[r] {
				if c >= Cols {
					break
				}
				s.Grid[r][c] = ch
				c++
			}
		}
		for ; c < Cols; c++ {
			s.Grid[r][c] = ' '
		}
	}
	return s
}

// PetBeside returns "f" or "d", the letter of the first of them next to
// the hero (the cursor) on s, "" if neither is: on the first screen of a
// game it is the pet, a kitten or a little dog.
func PetBeside(s *Screen) string {
	hx, hy := s.CursorX, s.CursorY-1
	for d := 0; d < 8; d++ {
		if c := s.MapCell(hx+DirDX[d], hy+DirDY[d]); c == 'f' || c == 'd' {
			return string(c)
		}
	}
	return ""
}

// End reasons of an episode: how it ended. The game ends itself with
// EndDied, EndStarved or EndEscaped; evolve ends it with #quit (the column
// quit) on EndStuck, EndTurnCap or EndActionCap.
const (
	EndDied      = "died"       // the hero died of anything but starvation
	EndStarved   = "starved"    // the hero died of starvation ("died of starvation")
	EndEscaped   = "escaped"    // the hero climbed out of the dungeon (xlogfile death "escaped")
	EndStuck     = "stuck"      // no new square seen or stood on and no descent within no_progress_turns turns (or twice that many actions)
	EndTurnCap   = "turn_cap"   // the game's turn counter reached max_turns
	EndActionCap = "action_cap" // the agent's own action budget ran out (the LLM agent's max_turns, or the run's step budget)
)
