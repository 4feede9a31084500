package report

import (
	"testing"
	"unicode/utf8"
)

func TestShortMutation(t *testing.T) {
	for _, tt := range []struct{ in, want, tex string }{
		{"Adjusted max_exploration_steps: 100 → 150", "max_exploration_steps 100→150", `max\_exploration\_steps 100$\to$150`},
		{"Adjusted hunger_threshold: 0.300 → 0.250 (down, Δ=0.050)", "hunger_threshold 0.300→0.250", ""},
		{"Adjusted a_very_long_parameter_name_for_the_test: 0.300 → 0.250", "a_very_long_para_name_for_the_test→0.250", ""},
		{"Adjusted an_even_longer_parameter_name_for_the_test_of_it: 0.3 → 0.25", "an_even_long_para_name_for_the_test_of_it→0.25", ""},
		{"Adjusted risk: 0.3 → 0.25", "risk 0.3→0.25", ""},
		{"Moved section a_very_long_section_name_indeed_and_more earlier for injury:\n- order", "a_very_long_section_name_indeed_and_more…", ""},
		{"Switched style: careful → bold", "style careful→bold", `style careful$\to$bold`},
		{"Prioritized 'flee': [fight flee] → [flee fight]", "flee first", "flee first"},
		{"Added rule for starvation (2 of 5):\n+ Eat when Hungry.", "+rule (starvation)", "+rule (starvation)"},
		{"Removed a rule for injury (no injury failures any more):\n- x", "-rule (injury)", "-rule (injury)"},
		{"", "", ""},
	} {
		got := ShortMutation(tt.in)
		if utf8.RuneCountInString(got) > MaxShortMutation {
			t.Errorf("ShortMutation(%q) = %q: longer than %d", tt.in, got, MaxShortMutation)
		}
		want := tt.want
		if utf8.RuneCountInString(want) > MaxShortMutation {
			want = string([]rune(want)[:MaxShortMutation-1]) + "…"
		}
		if got != want {
			t.Errorf("ShortMutation(%q) = %q, want %q", tt.in, got, want)
		}
		if tt.tex != "" && texMutation(tt.in) != tt.tex {
			t.Errorf("texMutation(%q) = %q, want %q", tt.in, texMutation(tt.in), tt.tex)
		}
	}
}
