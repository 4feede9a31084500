package agent

import (
	"cmp"
	"slices"
	"sync"
)

// ReplyTally counts the replies that named no action over many episodes
// (LLMOptions.Tally), so that a run stopped for too many fallbacks can
// show what the model said. It keeps at most MaxTallied distinct
// replies (later new ones are not counted). Safe for concurrent use;
// the zero ReplyTally is ready.
type ReplyTally struct {
	mu sync.Mutex
	n  map[string]int
}

// MaxTallied bounds the distinct replies a ReplyTally keeps.
const MaxTallied = 1024

// Add counts reply (as Session notes it: white space collapsed, at most
// 80 characters).
func (t *ReplyTally) Add(reply string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	if _, ok := t.n[reply]; ok || len(t.n) < MaxTallied {
		t.n[reply]++
	}
}

// TalliedReply is a reply and how often it came.
type TalliedReply struct {
	Reply string
	Count int
}

// Top returns the k most frequent replies, most frequent first (ties in
// the replies' byte order).
func (t *ReplyTally) Top(k int) []TalliedReply {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	out := make([]TalliedReply, 0, len(t.n))
	for r, n := range t.n {
		out = append(out, TalliedReply{r, n})
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b TalliedReply) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Reply, b.Reply)
	})
	return out[:min(k, len(out))]
}

// Reset forgets every reply.
func (t *ReplyTally) Reset() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.n = nil
	t.mu.Unlock()
}
