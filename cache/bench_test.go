package cache

import (
	"testing"
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
		if err := c.Put(testKey(s), dungeonOutcome(s)); err != nil {
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
		if err := c.Put(testKey(s), dungeonOutcome(s)); err != nil {
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
		if err := c.Put(testKey(s), dungeonOutcome(s)); err != nil {
			b.Fatal(err)
		}
		s++
	}
}

// BenchmarkEncodeDecode: the CPU cost of an entry alone, no file system.
func BenchmarkEncodeDecode(b *testing.B) {
	k, o := testKey(5), dungeonOutcome(5)
	for b.Loop() {
		e, err := encodeEntry(k, o, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := decodeEntry(e, k, nil); err != nil {
			b.Fatal(err)
		}
	}
}
