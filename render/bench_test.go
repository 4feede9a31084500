package render

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"evolve/prompt"
)

// BenchmarkTurn renders and counts one turn of the base prompt with a
// 20-message history, a new 9-line observation each turn (counted
// afresh; the history's counts come from the Renderer's cache, as in an
// episode) and a budget that holds.
func BenchmarkTurn(b *testing.B) {
	r, err := New(prompt.Base(), Options{Env: dungeon, MaxPromptTokens: 4000})
	if err != nil {
		b.Fatal(err)
	}
	obs := strings.Repeat(" |....<.@d..........|\n", 7) + "Dlvl:1 $:0 HP:10(12) Pw:2(2) AC:7 Xp:1/3 T:210 Hungry\nThe jackal bites! You hit the jackal."
	var hist []Message
	for i := 0; i < 10; i++ {
		hist = append(hist, Message{"user", fmt.Sprintf("Turn %d.\n%s", i, obs)}, Message{"assistant", "fight"})
	}
	b.ReportAllocs()
	var tokens, i int
	for b.Loop() {
		i++
		out, err := r.Turn(Runtime{Turn: 11, Observation: obs + " T:" + strconv.Itoa(i), History: hist})
		if err != nil {
			b.Fatal(err)
		}
		tokens = out.Tokens
	}
	b.ReportMetric(float64(tokens), "tokens/turn")
}

// BenchmarkCount counts the base prompt's system message.
func BenchmarkCount(b *testing.B) {
	r, err := New(prompt.Base(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	out, err := r.Preview(PhaseComputed)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out.System)))
	for b.Loop() {
		if _, err := Count(out.System); err != nil {
			b.Fatal(err)
		}
	}
}
