package agent

import (
	"errors"
	"fmt"
	"strings"

	"evolve/render"
)

// budgetProbe is an observation longer than any budget leaves room for,
// so that FitsBudget's turn takes the path that cuts the turn's message
// to its least (render.TruncationMarker alone).
var budgetProbe = strings.Repeat("Dlvl:1 $:0 HP:12(12) Pw:1(1) AC:7 Xp:1/0 T:1\n", 64)

// FitsBudget reports whether a request with the system prompt system
// can be sent under a budget of maxPromptTokens cl100k_base tokens (0: no
// limit): the system message, no history and the least turn message (cut
// to render.TruncationMarker), plus render.ReplyOverhead. It is what an
// episode's first turn would find, checked before a version is played,
// so that a candidate whose system text is too long is never played.
// tokens is the system message's count (render.Rendered.SystemTokens).
// The error is render's for anything but the budget (a template that
// does not parse).
func FitsBudget(system string, maxPromptTokens int) (tokens int, ok bool, err error) {
	rd, err := render.ForSystem(system, maxPromptTokens)
	if err != nil {
		return 0, false, err
	}
	out, err := rd.Turn(render.Runtime{Turn: 1, Observation: budgetProbe})
	if errors.Is(err, render.ErrOverBudget) {
		free, ferr := render.ForSystem(system, 0)
		if ferr != nil {
			return 0, false, ferr
		}
		out, ferr := free.Turn(render.Runtime{Turn: 1, Observation: "-"})
		return out.SystemTokens, false, ferr
	}
	if err != nil {
		return 0, false, fmt.Errorf("agent: checking the token budget: %w", err)
	}
	return out.SystemTokens, true, nil
}
