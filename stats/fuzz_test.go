package stats

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// decodeSamples turns fuzz bytes into two samples. If mode is even every
// byte is a small integer score (0..15: many ties); if odd, every 8 bytes
// are a raw float64 (NaN and ±Inf included). At most 80 values are used so
// that the exact method stays cheap.
func decodeSamples(data []byte, split, mode uint8) (x, y []float64) {
	var vals []float64
	if mode%2 == 0 {
		for _, b := range data {
			vals = append(vals, float64(b%16))
		}
	} else {
		for len(data) >= 8 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		}
	}
	if len(vals) > 80 {
		vals = vals[:80]
	}
	k := 0
	if len(vals) > 0 {
		k = int(split) % (len(vals) + 1)
	}
	return vals[:k], vals[k:]
}

// FuzzMannWhitneyU checks invariants on arbitrary inputs: the only errors
// are ErrSampleSize (an empty sample) and ErrNaN (a NaN); otherwise
// 0 <= P <= 1, 0 <= U <= n1·n2 with 2U an integer, the method is resolved,
// Z is NaN exactly for Exact, and swapping x and y swaps Greater and Less.
func FuzzMannWhitneyU(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7}, uint8(3), uint8(0), uint8(0), uint8(0))
	f.Add([]byte{5, 5, 5, 5, 5}, uint8(2), uint8(0), uint8(1), uint8(1))
	f.Add([]byte{0, 1, 1, 2, 3, 3, 3, 9, 15, 4, 4}, uint8(5), uint8(0), uint8(2), uint8(2))
	f.Add(make([]byte, 32), uint8(2), uint8(1), uint8(0), uint8(1))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, uint8(1), uint8(1), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, split, mode, alt, method uint8) {
		x, y := decodeSamples(data, split, mode)
		opt := MWUOptions{Alternative: Alternative(alt % 3), Method: Method(method % 3), TwoSidedRule: TwoSidedRule(method / 3 % 2)}
		r, err := MannWhitneyU(x, y, opt)
		if err != nil {
			if len(x) == 0 || len(y) == 0 {
				if !errors.Is(err, ErrSampleSize) {
					t.Fatalf("empty sample: err = %v, want ErrSampleSize", err)
				}
				return
			}
			if !errors.Is(err, ErrNaN) || !(hasNaN(x) || hasNaN(y)) {
				t.Fatalf("unexpected error %v for x %v y %v", err, x, y)
			}
			return
		}
		n1n2 := float64(len(x) * len(y))
		if !(r.P >= 0 && r.P <= 1) {
			t.Fatalf("P = %v out of [0, 1] (x %v y %v %+v)", r.P, x, y, opt)
		}
		if !(r.U >= 0 && r.U <= n1n2) || 2*r.U != math.Trunc(2*r.U) {
			t.Fatalf("U = %v out of [0, %v] or not a multiple of 1/2", r.U, n1n2)
		}
		if r.Method == Auto || (r.Method == Exact) != math.IsNaN(r.Z) {
			t.Fatalf("Method %v with Z %v", r.Method, r.Z)
		}
		if opt.Alternative != TwoSided {
			swapped := opt
			swapped.Alternative = 3 - opt.Alternative // Greater <-> Less
			s, err := MannWhitneyU(y, x, swapped)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.P-r.P) > 1e-12 {
				t.Fatalf("swap: P %v vs %v", r.P, s.P)
			}
		}
	})
}

// FuzzWilcoxonSignedRank checks the paired test's invariants: the only
// errors are ErrSampleSize and ErrNaN; otherwise 0 <= P <= 1 and
// 0 <= T+ <= NUsed(NUsed+1)/2.
func FuzzWilcoxonSignedRank(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(0), uint8(0), uint8(0))
	f.Add([]byte{3, 3, 1, 2, 2, 5}, uint8(0), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode, alt, method uint8) {
		v, _ := decodeSamples(data, 0, mode)
		n := len(v) / 2
		x, y := v[:n], v[n:2*n]
		opt := SignedRankOptions{Alternative: Alternative(alt % 3), Method: Method(method % 3), ZeroMethod: ZeroMethod(method / 3 % 3)}
		r, err := WilcoxonSignedRank(x, y, opt)
		if err != nil {
			if !errors.Is(err, ErrSampleSize) && !errors.Is(err, ErrNaN) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if !(r.P >= 0 && r.P <= 1) || r.TPlus < 0 || r.TPlus > float64(r.NUsed*(r.NUsed+1))/2 {
			t.Fatalf("P = %v, T+ = %v, NUsed = %d", r.P, r.TPlus, r.NUsed)
		}
	})
}
