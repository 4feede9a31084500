package dungeon

import "math/bits"

// rng is a SplitMix64 generator (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): one uint64 of state, no
// allocation, and a fixed sequence for a given seed on every platform. Each
// episode owns two: one for level generation (seeded from the episode seed
// and depth, so a level never depends on what the agent did before) and one
// for everything that happens in play.
type rng struct{ s uint64 }

// mix64 is SplitMix64's output function, also used to derive seeds.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a uniform integer in [0, n) for n > 0 (Lemire's
// multiply-shift without the rejection step: the bias is below 2^-32 for
// the small n used here, and the sequence stays fixed).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// rnd returns a uniform integer in [1, n], NetHack's rnd(n).
func (r *rng) rnd(n int) int { return 1 + r.intn(n) }

// dice returns the sum of n rolls of an s-sided die, NetHack's d(n, s).
func (r *rng) dice(n, s int) int {
	t := 0
	for i := 0; i < n; i++ {
		t += 1 + r.intn(s)
	}
	return t
}

// chance reports true with probability 1/n, NetHack's !rn2(n).
func (r *rng) chance(n int) bool { return r.intn(n) == 0 }

// float returns a uniform float64 in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }
