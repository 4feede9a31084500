package nethack

import (
	"strings"
	"testing"
)

func screenOf(lines ...string) *Screen {
	s := &Screen{}
	for y := range s.Grid {
		for x := range s.Grid[y] {
			s.Grid[y][x] = ' '
		}
	}
	for y, l := range lines {
		for x, c := range l {
			s.Grid[y][x] = c
		}
	}
	return s
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		line2 string
		want  Status
	}{
		{"Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:1", Status{Dlvl: 1, HP: 16, MaxHP: 16, Pw: 2, MaxPw: 2, AC: 6, XL: 1, T: 1, St: "18/02", OK: true}},
		{"Dlvl:4 $:31 HP:5(35) Pw:8(8) AC:-1 Xp:3/52 T:1140 Weak Burdened", Status{Dlvl: 4, Gold: 31, HP: 5, MaxHP: 35, Pw: 8, MaxPw: 8, AC: -1, XL: 3, Exp: 52, T: 1140, Hunger: "Weak", St: "18/02", OK: true}},
		{"Dlvl:2 $:4 HP:27(27) Pw:5(5) AC:6 Xp:2/23 T:736 Hungry", Status{Dlvl: 2, Gold: 4, HP: 27, MaxHP: 27, Pw: 5, MaxPw: 5, AC: 6, XL: 2, Exp: 23, T: 736, Hunger: "Hungry", St: "18/02", OK: true}},
		{"not a status line", Status{}},
	} {
		s := screenOf()
		copy(s.Grid[22][:], []rune("Agent the Stripling  St:18/02 Dx:14 Co:18 In:9 Wi:7 Ch:7 Neutral"))
		copy(s.Grid[23][:], []rune(tc.line2))
		if tc.want.St == "" {
			tc.want.St = ""
		}
		if got := s.Status(); got != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.line2, got, tc.want)
		}
	}
}

func TestScreenPrompts(t *testing.T) {
	for _, tc := range []struct {
		row0         string
		more, prompt bool
	}{
		{"Velkommen agent, welcome to NetHack!--More--", true, false},
		{"Really attack the watchman? [yn] (n)", false, true},
		{"Are you sure you want to pray? [yn] (n)", false, true},
		{"What do you want to eat? [d or ?*]", false, true},
		{"You see here a scroll labeled GHOTI.", false, false},
	} {
		s := screenOf(tc.row0)
		if s.More() != tc.more || (s.Prompt() != "") != tc.prompt {
			t.Errorf("%q: More %v Prompt %q", tc.row0, s.More(), s.Prompt())
		}
	}
	if !screenOf("", "  a - a long sword", " (end)").Menu() {
		t.Error("menu ending in (end) not seen")
	}
}

func TestReplayErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "no header",
		"{\"version\": 1}\n":       "version 2",
		"{\"version\": 2}\n[1, 2]": "line 2",
	} {
		if _, err := Replay([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
	got, err := Replay([]byte("{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.0, \"o\", \"\\u001b[2;3Hhi\"]\n"))
	if err != nil || strings.Split(got, "\n")[1] != "  hi" {
		t.Errorf("got %q, %v", got, err)
	}
}

func FuzzReplay(f *testing.F) {
	f.Add([]byte("{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.0, \"o\", \"\\u001b[2;3Hhi\"]\n"))
	f.Add([]byte("{\"version\": 2}\n[0.1, \"o\", \"\\u001b[?1049h\\u001b[H\\u001b[2J\"]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		Replay(b) // must not panic
	})
}

// FuzzScreenRows checks Row, More and Menu, which scan the grid without
// building every row's string, against their definitions on strings:
// the row as a string without trailing blanks, "--More--" anywhere, and
// a trimmed row ending in "(end)" or "(n of m)".
func FuzzScreenRows(f *testing.F) {
	f.Add("Really attack the watchman? [yn] (n)", " (end)   ")
	f.Add("Velkommen agent, welcome to NetHack!--More--", "  (2 of 3)")
	f.Add("héllo\u00a0", "(1 of 2)\u2003")
	f.Add("\xff\x00-", " --More")
	f.Fuzz(func(t *testing.T, a, b string) {
		s := screenOf()
		copy(s.Grid[0][:], []rune(a))
		copy(s.Grid[5][:], []rune(b))
		more, menu := false, false
		for y := 0; y < Rows; y++ {
			want := strings.TrimRight(string(s.Grid[y][:]), " ")
			if got := s.Row(y); got != want {
				t.Fatalf("Row(%d) = %q, want %q", y, got, want)
			}
			more = more || strings.Contains(want, "--More--")
			r := strings.TrimSpace(want)
			menu = menu || strings.HasSuffix(r, "(end)") || MenuPage.MatchString(r)
		}
		if s.More() != more || s.Menu() != menu {
			t.Fatalf("%q, %q: More %v Menu %v, want %v %v", a, b, s.More(), s.Menu(), more, menu)
		}
	})
}
