package nethack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hinshun/vt10x"
)

// Replay plays an asciicast v2 recording (as Outcome.Trajectory holds it)
// into an 80×24 terminal emulator and returns the final screen, 24 lines
// with trailing blanks removed (the format of Screen.String). Errors name
// the line that is not a valid header or event.
func Replay(cast []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(cast))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	if !sc.Scan() {
		return "", fmt.Errorf("asciicast: no header line")
	}
	var h struct {
		Version       int `json:"version"`
		Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 {
		return "", fmt.Errorf("asciicast: line 1: want a version 2 header, got %.80q", sc.Text())
	}
	w, hh := h.Width, h.Height
	if w <= 0 || hh <= 0 {
		w, hh = Cols, Rows
	}
	if w > 1000 || hh > 1000 {
		return "", fmt.Errorf("asciicast: line 1: terminal %d×%d is larger than 1000×1000", w, hh)
	}
	term := vt10x.New(vt10x.WithSize(w, hh))
	for n := 2; sc.Scan(); n++ {
		var ev []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			return "", fmt.Errorf("asciicast: line %d: want [time, code, data], got %.80q", n, sc.Text())
		}
		var code, data string
		if json.Unmarshal(ev[1], &code) != nil || json.Unmarshal(ev[2], &data) != nil {
			return "", fmt.Errorf("asciicast: line %d: code and data must be strings", n)
		}
		if code == "o" {
			term.Write([]byte(data))
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("asciicast: %w", err)
	}
	s := &Screen{}
	for y := 0; y < Rows && y < hh; y++ {
		for x := 0; x < Cols && x < w; x++ {
			c := term.Cell(x, y).Char
			if c == 0 {
				c = ' '
			}
			s.Grid[y][x] = c
		}
	}
	return s.String(), nil
}
