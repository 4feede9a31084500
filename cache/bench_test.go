package cache

import (
	"fmt"
	"strings"
	"testing"

	"evolve/envs"
)

// The benchmarks measure the cost per episode of the cache on a
// dungeon-shaped outcome (13 metrics, no trajectory; an entry of about 420
// bytes), in a directory under the test's temporary directory (the file
// system of $TMPDIR).

// BenchmarkGet: a hit, on a small cache.
func BenchmarkGet(b *testing.B) {
	c := open(b)
	const n = 1000
	for s := range uint64(n) {
		if err := c.Put(testKey(s), Entry{Outcome: dungeonOutcome(s)}); err != nil {
			b.Fatal(err)
		}
	}
	var s uint64
	for b.Loop() {
		if _, ok, err := c.Get(testKey(s % n)); !ok || err != nil {
			b.Fatal(ok, err)
		}
		s++
	}
}

// BenchmarkGetMiss: a miss (the entry's file does not exist).
func BenchmarkGetMiss(b *testing.B) {
	c := open(b)
	var s uint64
	for b.Loop() {
		if _, ok, err := c.Get(testKey(s)); ok || err != nil {
			b.Fatal(ok, err)
		}
		s++
	}
}

// BenchmarkGet100k: a hit on a cache of 100,000 entries (about 390 per
// subdirectory), keys visited with a stride of 7919 (unrelated to where
// their hashes put them).
func BenchmarkGet100k(b *testing.B) {
	c := open(b)
	const n = 100_000
	for s := range uint64(n) {
		if err := c.Put(testKey(s), Entry{Outcome: dungeonOutcome(s)}); err != nil {
			b.Fatal(err)
		}
	}
	var s uint64
	for b.Loop() {
		k := testKey(s * 7919 % n) // 7919 is prime, so every key comes up
		if _, ok, err := c.Get(k); !ok || err != nil {
			b.Fatal(ok, err)
		}
		s++
	}
}

// BenchmarkPut: a new entry each time (no fsync, as Put does).
func BenchmarkPut(b *testing.B) { benchPut(b, false) }

// BenchmarkPutSync: the same with an fsync of the file and its directory,
// for comparison (see the package documentation).
func BenchmarkPutSync(b *testing.B) { benchPut(b, true) }

func benchPut(b *testing.B, sync bool) {
	c := open(b)
	c.sync = sync
	var s uint64
	for b.Loop() {
		if err := c.Put(testKey(s), Entry{Outcome: dungeonOutcome(s)}); err != nil {
			b.Fatal(err)
		}
		s++
	}
}

// BenchmarkEncodeDecode: the CPU cost of an entry alone, no file system.
func BenchmarkEncodeDecode(b *testing.B) {
	k, o := testKey(5), Entry{Outcome: dungeonOutcome(5)}
	for b.Loop() {
		e, err := encodeEntry(k, o, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := decodeEntry(e, k, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCast returns an asciicast v2 recording of about 60 KB shaped like
// NetHack's (a header, 600 events of a screen update each).
func benchCast() []byte {
	var b strings.Builder
	b.WriteString(`{"version": 2, "width": 80, "height": 24, "env": {"TERM": "xterm"}, "title": "evolve nethack"}` + "\n")
	for i := range 600 {
		fmt.Fprintf(&b, "[%d.%d, \"o\", \"\\u001b[%d;1H\\u001b[K  ---..|.@.d..|--  Dlvl:%d $:%d HP:14(14) T:%d\\r\\n\"]\n", i/10, i%10, i%24+1, i/100+1, i, i*3)
	}
	return []byte(b.String())
}

// BenchmarkGetAsciicast: a hit on a NetHack-shaped entry with its
// asciicast trajectory (checksum and format check included).
func BenchmarkGetAsciicast(b *testing.B) {
	c := open(b)
	o := dungeonOutcome(1)
	o.Trajectory, o.TrajectoryFormat = benchCast(), envs.TrajectoryAsciicast
	if err := c.Put(testKey(1), Entry{Outcome: o, Recorded: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(o.Trajectory)))
	for b.Loop() {
		if e, ok, err := c.Get(testKey(1)); !ok || err != nil || len(e.Trajectory) != len(o.Trajectory) {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkPutAsciicast: a Put of the same entry.
func BenchmarkPutAsciicast(b *testing.B) {
	c := open(b)
	o := dungeonOutcome(1)
	o.Trajectory, o.TrajectoryFormat = benchCast(), envs.TrajectoryAsciicast
	b.SetBytes(int64(len(o.Trajectory)))
	for b.Loop() {
		if err := c.Put(testKey(1), Entry{Outcome: o, Recorded: true}); err != nil {
			b.Fatal(err)
		}
	}
}
