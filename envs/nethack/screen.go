package nethack

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Screen is one parsed 80×24 terminal screen of the game: row 0 is the
// message line, rows 1–21 the map (map row y is screen row y+1), rows 22
// and 23 the two status lines.
type Screen struct {
	Grid             [Rows][Cols]rune
	CursorX, CursorY int // the cursor's cell, 0-based
	// Inverse marks the cells drawn in inverse video. With the game's
	// hilite_pet option (on in every episode, see options) the pet is the
	// one monster so drawn: the game marks its own tame monsters.
	Inverse [Rows][Cols]bool
}

// Row returns screen row y (0-based) with trailing blanks removed.
func (s *Screen) Row(y int) string {
	r := &s.Grid[y]
	n := len(r)
	for n > 0 && r[n-1] == ' ' {
		n--
	}
	// One allocation per row: the game's screen is ASCII but for a rare
	// rune, which is encoded as UTF-8 like string([]rune) would.
	var b [Cols * utf8.UTFMax]byte
	buf := b[:0]
	for _, c := range r[:n] {
		if c >= 0 && c < utf8.RuneSelf {
			buf = append(buf, byte(c))
		} else {
			buf = utf8.AppendRune(buf, c)
		}
	}
	return string(buf)
}

// hasRunes reports whether row holds the ASCII text sub, without
// building the row's string (More asks it of every row at every key).
func hasRunes(row *[Cols]rune, sub string) bool {
	for i := 0; i+len(sub) <= len(row); i++ {
		j := 0
		for j < len(sub) && row[i+j] == rune(sub[j]) {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// lastRune returns the last rune of row that is not white space, or 0 for
// a blank row.
func lastRune(row *[Cols]rune) rune {
	for i := len(row) - 1; i >= 0; i-- {
		if !unicode.IsSpace(row[i]) {
			return row[i]
		}
	}
	return 0
}

// String returns the screen as 24 lines.
func (s *Screen) String() string {
	var b strings.Builder
	for y := 0; y < Rows; y++ {
		b.WriteString(s.Row(y))
		b.WriteByte('\n')
	}
	return b.String()
}

// Message returns the message line (row 0) without a trailing --More--.
func (s *Screen) Message() string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Row(0)), "--More--"))
}

// More reports whether the game waits for a key after --More-- anywhere
// on the screen (the message line or a text window).
func (s *Screen) More() bool {
	for y := 0; y < Rows; y++ {
		if hasRunes(&s.Grid[y], "--More--") {
			return true
		}
	}
	return false
}

// Menu reports whether a menu or text window covers the map: a line
// ending in "(end)" or "(n of m)".
func (s *Screen) Menu() bool {
	for y := 0; y < Rows; y++ {
		if lastRune(&s.Grid[y]) != ')' {
			continue // neither marker: most rows, at every key
		}
		r := strings.TrimSpace(s.Row(y))
		if strings.HasSuffix(r, "(end)") || MenuPage.MatchString(r) {
			return true
		}
	}
	return false
}

// MenuPage matches the page marker that ends a menu page's last row:
// "(1 of 3)".
var MenuPage = regexp.MustCompile(`\(\d+ of \d+\)$`)

// Prompt returns the message line if it asks a question the game waits
// on, "" otherwise. While the game waits for a command its cursor stands
// on the hero (a map row), so a cursor on the map means no prompt (the
// travel command's "Where do you want to travel to?" holds the cursor on
// the map too, and is answered within the travel action). Otherwise a
// prompt is a y/n question ("[yn]", "[ynq]", "[yn] (n)"), an object
// prompt ("[abc or ?*]"), a question ending in '?' ("What do you want to
// name this level?"), a text prompt ending in ':' ("Call a white
// potion:"), or any message with the cursor right after it.
func (s *Screen) Prompt() string {
	m := strings.TrimSpace(s.Row(0))
	if m == "" || strings.Contains(m, "--More--") || s.CursorY >= 1 && s.CursorY <= MapRows {
		return ""
	}
	if strings.Contains(m, "[") && (strings.HasSuffix(m, "]") || strings.HasSuffix(m, ")") || strings.HasSuffix(m, "?")) {
		return m
	}
	if strings.HasSuffix(m, "?") || strings.HasSuffix(m, ":") {
		return m
	}
	if s.CursorY == 0 && s.CursorX >= len([]rune(s.Row(0))) {
		return m
	}
	return ""
}

// Status is what the two status lines say.
type Status struct {
	Dlvl, Gold, HP, MaxHP, Pw, MaxPw, AC, XL, Exp, T int
	Hunger                                           string // "", "Satiated", "Hungry", "Weak", "Fainting", "Fainted"
	St                                               string
	OK                                               bool // the second status line was parsed
}

var (
	statusRe = regexp.MustCompile(`Dlvl:(\d+)\s+\$:(\d+)\s+HP:(-?\d+)\((\d+)\)\s+Pw:(\d+)\((\d+)\)\s+AC:(-?\d+)\s+(?:Xp:(\d+)/(\d+)|HD:(\d+))(?:\s+T:(\d+))?(.*)$`)
	stRe     = regexp.MustCompile(`St:(\S+)`)
)

// Status parses the status lines (rows 22 and 23).
func (s *Screen) Status() Status {
	var st Status
	m := statusRe.FindStringSubmatch(s.Row(23))
	if m == nil {
		return st
	}
	a := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	st.Dlvl, st.Gold, st.HP, st.MaxHP, st.Pw, st.MaxPw, st.AC = a(1), a(2), a(3), a(4), a(5), a(6), a(7)
	if m[8] != "" {
		st.XL, st.Exp = a(8), a(9)
	} else {
		st.XL = a(10)
	}
	st.T = a(11)
	for _, h := range []string{"Satiated", "Hungry", "Weak", "Fainting", "Fainted"} {
		if strings.Contains(m[12], h) {
			st.Hunger = h
			break
		}
	}
	if x := stRe.FindStringSubmatch(s.Row(22)); x != nil {
		st.St = x[1]
	}
	st.OK = true
	return st
}

// MapCell returns the map character at map coordinates (x, y), y in
// [0, 21), or ' ' outside.
func (s *Screen) MapCell(x, y int) rune {
	if x < 0 || x >= Cols || y < 0 || y >= MapRows {
		return ' '
	}
	return s.Grid[y+1][x]
}

// MapRows is the number of map rows (screen rows 1–21).
const MapRows = 21

// Hero returns the hero's map position; ok is false if it is not found.
// When the game waits for a command its cursor stands on the hero,
// whatever the hero looks like: '@', or a letter when polymorphed (a
// lycanthrope's 'r'), a random glyph when hallucinating, the remembered
// floor when invisible. So the cursor on a map row is the hero; only
// without it (a prompt or --More-- holds the cursor on the message line)
// is the first '@' on the map taken.
func (s *Screen) Hero() (x, y int, ok bool) {
	if s.CursorY >= 1 && s.CursorY <= MapRows {
		return s.CursorX, s.CursorY - 1, true
	}
	for yy := 0; yy < MapRows; yy++ {
		for xx := 0; xx < Cols; xx++ {
			if s.Grid[yy+1][xx] == '@' {
				return xx, yy, true
			}
		}
	}
	return 0, 0, false
}

// Pet reports whether map cell (x, y) shows the hero's pet: a monster
// drawn in inverse video (hilite_pet).
func (s *Screen) Pet(x, y int) bool {
	if x < 0 || x >= Cols || y < 0 || y >= MapRows {
		return false
	}
	return s.Inverse[y+1][x] && IsMonster(s.Grid[y+1][x])
}

// Tombstone reports whether the screen shows the end of a game (the
// tombstone or the "killed by"/"Goodbye" summary).
func (s *Screen) Tombstone() bool {
	t := s.String()
	return strings.Contains(t, "REST") && strings.Contains(t, "PEACE") || strings.Contains(t, "Goodbye agent")
}

// DirKeys are the eight directions as vi-keys (h left, j down, k up, l
// right, y u b n the diagonals); DirDX and DirDY are their offsets on the
// map (x to the right, y down).
var (
	DirKeys = [8]byte{'h', 'j', 'k', 'l', 'y', 'u', 'b', 'n'}
	DirDX   = [8]int{-1, 0, 0, 1, -1, 1, -1, 1}
	DirDY   = [8]int{0, 1, -1, 0, -1, -1, 1, 1}
)

// IsMonster reports whether map character c shows a monster (a letter,
// '@' other than the hero, '&', ':', ';' or '\”).
func IsMonster(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '&' || c == ':' || c == ';' || c == '\''
}
