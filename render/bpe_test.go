package render

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// bpeCases are texts whose tokens the O(n log n) merge must give exactly
// as tiktoken-go's EncodeOrdinary (the reference, itself checked against
// tiktoken's published ids in TestTokensPublished): runs of one
// character up to the length tiktoken-go still encodes quickly, mixed
// scripts, emoji with joiners, combining marks, invalid UTF-8.
func bpeCases() []string {
	cases := []string{
		"", "hello world", "tiktoken is great!", "today\n \n", " \u00850", "👍", "👨‍👩‍👧‍👦 family",
		"日本語のテキストと English mixed 混合", "Z̷̢̛a̸l̴g̶o̵ text", "\xff\xfe invalid \xc3", "<|endoftext|> is ordinary",
		"    indented\n\tcode();\n", "1234567890123 numbers 3.14159", "HP:10(12) Pw:1(1) AC:7 Xp:1/0 T:1 Hungry",
		"|..<.@d....|\n|.%..!..$.|\n", "don't won't it's I'll we've they're", "ＦＵＬＬＷＩＤＴＨ",
	}
	for _, r := range []string{" ", "a", "-", "=", "\n", "ab", "😀", "é", "0", "#.", "\t", "AAAA"} {
		for _, n := range []int{1, 2, 3, 7, 50, 79, 80, 81, 200, 1000, 3000} {
			cases = append(cases, strings.Repeat(r, n), "x"+strings.Repeat(r, n)+"y")
		}
	}
	rng := rand.New(rand.NewPCG(21, 1))
	alphabet := []rune("aaeeiioo tnsrhl  \n.,!?'-0123456789éü日本😀\u200d\u0301")
	for range 300 {
		b := make([]rune, 1+rng.IntN(200))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	return cases
}

func TestBPEMatchesTiktoken(t *testing.T) {
	e, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	fast, _ := fastEncoder()
	for _, c := range bpeCases() {
		want := e.EncodeOrdinary(c)
		if got := fast.tokens(c); !slices.Equal(got, want) {
			t.Errorf("%q (%d bytes): tokens %v, want %v", c[:min(len(c), 40)], len(c), got, want)
		}
		if n, _ := Count(c); n != len(want) {
			t.Errorf("%q: Count %d, want %d", c[:min(len(c), 40)], n, len(want))
		}
	}
}

// FuzzBPE: the fast merge and tiktoken-go agree on any text short enough
// for tiktoken-go's quadratic merge.
func FuzzBPE(f *testing.F) {
	for _, c := range bpeCases()[:40] {
		f.Add(c)
	}
	e, err := encoder()
	if err != nil {
		f.Fatal(err)
	}
	fast, _ := fastEncoder()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		if want, got := e.EncodeOrdinary(s), fast.tokens(s); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	})
}

// BenchmarkCountRun counts one run of one character, up to 1 MB: linear
// up to the log factor of the merge (tiktoken-go's own merge took 11 s
// for 80,000 spaces).
func BenchmarkCountRun(b *testing.B) {
	if _, err := encoder(); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1 << 10, 80_000, 1 << 20} {
		for _, r := range []string{" ", "a", "-"} {
			text := strings.Repeat(r, n)
			name := map[string]string{" ": "space", "a": "letter", "-": "dash"}[r]
			b.Run(name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					Count(text)
				}
			})
		}
	}
}
