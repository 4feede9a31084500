package render

import (
	"container/heap"
	"math"

	"github.com/dlclark/regexp2"
)

// bpe is cl100k_base's byte-pair encoder with a merge that is
// O(n log n) in a piece's length: tiktoken-go's (bpe.go, bytePairMerge)
// rescans every pair after each merge, which is quadratic, so that one
// run of 80,000 spaces took 11 s to count. The result is the same
// tokens: the pair of lowest rank is merged first, the leftmost among
// equal ranks, as tiktoken's _byte_pair_merge (openai/tiktoken, src/lib.rs)
// does; a heap of the candidate pairs keyed by (rank, position) with
// stale entries skipped finds that pair without the scan (the
// "linked list and priority queue" form of BPE, as in Hugging Face's
// tokenizers, models/bpe/word.rs).
type bpe struct {
	ranks map[string]int
	re    *regexp2.Regexp
}

// newBPE compiles cl100kPattern over ranks.
func newBPE(ranks map[string]int) (*bpe, error) {
	re, err := regexp2.Compile(cl100kPattern, regexp2.None)
	if err != nil {
		return nil, err
	}
	return &bpe{ranks: ranks, re: re}, nil
}

// encode returns the tokens of text as tiktoken-go's EncodeOrdinary does:
// the text is read as runes (an invalid UTF-8 byte becomes U+FFFD), cut
// into pieces by cl100kPattern, and each piece is one token if it is
// one, else its byte-pair encoding. add receives each piece's tokens.
func (b *bpe) encode(text string, add func(toks []int)) {
	runes := []rune(text)
	m, _ := b.re.FindRunesMatch(runes)
	var buf []int
	for m != nil {
		piece := string(runes[m.Index : m.Index+m.Length])
		if t, ok := b.ranks[piece]; ok {
			buf = append(buf[:0], t)
		} else {
			buf = b.merge([]byte(piece), buf[:0])
		}
		add(buf)
		m, _ = b.re.FindNextMatch(m)
	}
}

// count returns the number of tokens of text.
func (b *bpe) count(text string) int {
	n := 0
	b.encode(text, func(toks []int) { n += len(toks) })
	return n
}

// tokens returns the tokens of text.
func (b *bpe) tokens(text string) []int {
	var out []int
	b.encode(text, func(toks []int) { out = append(out, toks...) })
	return out
}

// pairHeap orders candidate merges by rank, then by position.
type pairHeap []pairAt

type pairAt struct {
	rank, at, ver int // at: the left part's start; ver: the left part's version when pushed
}

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].at < h[j].at
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairAt)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge appends piece's byte-pair encoding to out.
func (b *bpe) merge(piece []byte, out []int) []int {
	n := len(piece)
	if n == 1 {
		return append(out, b.ranks[string(piece)])
	}
	// Parts are byte offsets linked left to right; part i spans
	// [i, next[i]). A part that was merged away has ver -1.
	next := make([]int, n)
	prev := make([]int, n)
	ver := make([]int, n)
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	rankOf := func(i int) int { // of merging part i with the part after it
		j := next[i]
		if j >= n {
			return math.MaxInt
		}
		if r, ok := b.ranks[string(piece[i:next[j]])]; ok {
			return r
		}
		return math.MaxInt
	}
	h := make(pairHeap, 0, n)
	for i := 0; i+1 < n; i++ {
		if r := rankOf(i); r != math.MaxInt {
			h = append(h, pairAt{r, i, 0})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		p := heap.Pop(&h).(pairAt)
		i := p.at
		if ver[i] != p.ver || ver[i] < 0 || next[i] >= n {
			continue // stale
		}
		j := next[i]
		// Merge part j into part i.
		ver[j] = -1
		next[i] = next[j]
		if next[j] < n {
			prev[next[j]] = i
		}
		ver[i]++
		if r := rankOf(i); r != math.MaxInt {
			heap.Push(&h, pairAt{r, i, ver[i]})
		}
		if k := prev[i]; k >= 0 {
			ver[k]++
			if r := rankOf(k); r != math.MaxInt {
				heap.Push(&h, pairAt{r, k, ver[k]})
			}
		}
	}
	for i := 0; i < n; i = next[i] {
		out = append(out, b.ranks[string(piece[i:next[i]])])
	}
	return out
}
