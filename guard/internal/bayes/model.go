package bayes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Scale is the number of integer units in 1.0 (a natural-log unit) of
// every fitted weight: a weight w is held as round(w·Scale).
const Scale = 1024

// Model is a fitted classifier. Its fields are read-only once it is made
// by Fit or Decode; a Model is safe for concurrent use.
type Model struct {
	// Classes names the attack classes, in order; Class returns an index
	// into it. It has 1 to 255 names, each 1 to 255 bytes long.
	Classes []string
	// Threshold is the score above which a sentence is an attack; it is
	// chosen by CrossValidate, and 0 after Fit.
	Threshold float64
	// Keys are the feature keys seen in training, ascending and unique;
	// at most 2^31-1.
	Keys []uint32
	// Attack[i] is the log-likelihood ratio of Keys[i], attack to benign,
	// in units of 1/Scale; len(Attack) == len(Keys).
	Attack []int16
	// Bias is the log prior ratio of attack to benign texts, in units.
	Bias int32
	// PriorKeys is added to the number of keys in the denominator of the
	// score (see Score), in [0, 65535]: it shrinks the score of a short
	// sentence towards Bias ("Request." alone says little).
	PriorKeys int
	// Class[c][i] is log(1 + n/α), in units, where n is the count of
	// Keys[i] in the attacks of class c: the log-likelihood of a key
	// seen in class c above that of an unseen one. len(Class) ==
	// len(Classes), and len(Class[c]) == len(Keys).
	Class [][]int16
	// Prior[c] is the log prior of class c among the attacks, in units.
	Prior []int32
	// Unseen[c] is the log-likelihood of a key not seen in class c, in
	// units.
	Unseen []int32

	// slots is an open-addressing table of indexes into Keys, by the low
	// bits of the key, with linear probing; -1 is empty.
	slots []int32
	mask  uint32
}

// index builds m.slots; it is called once, by Fit or Decode.
func (m *Model) index() {
	n := 1
	for n < 2*len(m.Keys) {
		n *= 2
	}
	m.slots = make([]int32, n)
	for i := range m.slots {
		m.slots[i] = -1
	}
	m.mask = uint32(n - 1)
	for i, k := range m.Keys {
		j := k & m.mask
		for m.slots[j] >= 0 {
			j = (j + 1) & m.mask
		}
		m.slots[j] = int32(i)
	}
}

// find returns the index of key k in m.Keys, or -1.
func (m *Model) find(k uint32) int32 {
	for j := k & m.mask; ; j = (j + 1) & m.mask {
		i := m.slots[j]
		if i < 0 || m.Keys[i] == k {
			return i
		}
	}
}

// Score returns the attack score of a sentence with feature keys keys
// (see AppendKeys) and its most likely class, an index into m.Classes.
// The score is
//
//	Bias/Scale + (Σ Attack[k]/Scale) / sqrt(len(keys) + PriorKeys)
//
// over the keys the model knows (an unknown key counts in len(keys) only),
// a naive Bayes log-likelihood ratio scaled so that long and short
// sentences compare; it is Bias/Scale if there are no keys and PriorKeys
// is 0. The class maximises
// Prior[c] + Σ (Unseen[c] + Class[c][k]) over all keys, the multinomial
// naive Bayes posterior (Manning et al. 2008, eq. 13.3), ties going to
// the lower index. Score panics if m was not made by Fit or Decode.
func (m *Model) Score(keys []uint32) (score float64, class int) {
	var sum int64
	var buf [8]int64
	post := buf[:0]
	if len(m.Classes) > len(buf) {
		post = make([]int64, 0, len(m.Classes))
	}
	post = post[:len(m.Classes)]
	for c := range post {
		post[c] = int64(m.Prior[c]) + int64(len(keys))*int64(m.Unseen[c])
	}
	for _, k := range keys {
		i := m.find(k)
		if i < 0 {
			continue
		}
		sum += int64(m.Attack[i])
		for c := range post {
			post[c] += int64(m.Class[c][i])
		}
	}
	score = float64(m.Bias) / Scale
	if d := len(keys) + m.PriorKeys; d > 0 {
		score += float64(sum) / Scale / math.Sqrt(float64(d))
	}
	for c := range post {
		if post[c] > post[class] {
			class = c
		}
	}
	return score, class
}

// magic starts an encoded Model.
const magic = "GUARDNB1"

// ErrFormat is matched (with errors.Is) by every error of Decode: the
// bytes are not an encoded Model.
var ErrFormat = errors.New("bayes: not an encoded model")

// Encode returns m in its binary form, which Decode reads back; the bytes
// depend only on m's exported fields. All integers are little-endian:
//
//	"GUARDNB1"
//	uint8 C, then C times: uint8 length, class name
//	float64 Threshold (IEEE 754 bits), int32 Bias, uint16 PriorKeys
//	C times: int32 Prior[c], int32 Unseen[c]
//	uint32 N, N × uint32 Keys, N × int16 Attack, then C times N × int16 Class[c]
//
// It panics if m breaks the documented limits of its fields.
func (m *Model) Encode() []byte {
	c, n := len(m.Classes), len(m.Keys)
	if c == 0 || c > 255 || len(m.Class) != c || len(m.Prior) != c || len(m.Unseen) != c ||
		len(m.Attack) != n || n > math.MaxInt32 || m.PriorKeys < 0 || m.PriorKeys > math.MaxUint16 {
		panic("bayes: Encode: inconsistent model")
	}
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(byte(c))
	for _, name := range m.Classes {
		if len(name) == 0 || len(name) > 255 {
			panic("bayes: Encode: class name length")
		}
		b.WriteByte(byte(len(name)))
		b.WriteString(name)
	}
	put := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	put(math.Float64bits(m.Threshold))
	put(m.Bias)
	put(uint16(m.PriorKeys))
	for k := range c {
		put(m.Prior[k])
		put(m.Unseen[k])
	}
	put(uint32(n))
	put(m.Keys)
	put(m.Attack)
	for k := range c {
		if len(m.Class[k]) != n {
			panic("bayes: Encode: inconsistent model")
		}
		put(m.Class[k])
	}
	return b.Bytes()
}

// Decode reads a Model written by Encode. It returns an error matching
// ErrFormat if data is truncated, has trailing bytes, a wrong magic, an
// empty class name or keys that are not ascending and unique.
func Decode(data []byte) (*Model, error) {
	r := bytes.NewReader(data)
	fail := func(what string) (*Model, error) {
		return nil, fmt.Errorf("%w: %s at byte %d", ErrFormat, what, len(data)-r.Len())
	}
	head := make([]byte, len(magic))
	if _, err := r.Read(head); err != nil || string(head) != magic {
		return fail("bad magic")
	}
	get := func(v any) bool { return binary.Read(r, binary.LittleEndian, v) == nil }
	var c uint8
	if !get(&c) || c == 0 {
		return fail("no classes")
	}
	m := &Model{Classes: make([]string, c), Prior: make([]int32, c), Unseen: make([]int32, c)}
	for k := range m.Classes {
		var l uint8
		if !get(&l) || l == 0 || int(l) > r.Len() {
			return fail("bad class name")
		}
		name := make([]byte, l)
		_, _ = r.Read(name)
		m.Classes[k] = string(name)
	}
	var bits uint64
	var prior uint16
	if !get(&bits) || !get(&m.Bias) || !get(&prior) {
		return fail("truncated header")
	}
	m.PriorKeys = int(prior)
	m.Threshold = math.Float64frombits(bits)
	for k := range m.Classes {
		if !get(&m.Prior[k]) || !get(&m.Unseen[k]) {
			return fail("truncated class header")
		}
	}
	var n uint32
	if !get(&n) || int64(n)*int64(4+2+2*int(c)) != int64(r.Len()) {
		return fail("key count does not match length")
	}
	m.Keys = make([]uint32, n)
	m.Attack = make([]int16, n)
	get(m.Keys)
	get(m.Attack)
	m.Class = make([][]int16, c)
	for k := range m.Class {
		m.Class[k] = make([]int16, n)
		get(m.Class[k])
	}
	for i := 1; i < len(m.Keys); i++ {
		if m.Keys[i] <= m.Keys[i-1] {
			return fail("keys not ascending")
		}
	}
	m.index()
	return m, nil
}
