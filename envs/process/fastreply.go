package process

import (
	"bytes"
	"strconv"
)

// fastReply decodes line into r (which must be zero) as json.Unmarshal
// would, for the common shape of a response: a JSON object whose keys are
// lower-case ASCII ([a-z0-9_], no escapes) and distinct, whose id is a
// whole number, type and message plain printable ASCII strings (no
// escapes), reward a number, done true or false, and any other value
// valid JSON nested at most maxFastDepth deep. It reports false, leaving
// r in any state, for anything else (an error, an unusual key, a null
// id, an escaped string), which the caller then decodes with
// json.Unmarshal: the result is the same either way (FuzzFastReply
// checks it), only faster for the replies a step sends (no reflection;
// the values copied once).
func fastReply(line []byte, r *reply) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	var seen uint16
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for {
			// key
			if i >= len(line) || line[i] != '"' {
				return false
			}
			k0 := i + 1
			k1 := k0
			for k1 < len(line) && (line[k1] >= 'a' && line[k1] <= 'z' || line[k1] >= '0' && line[k1] <= '9' || line[k1] == '_') {
				k1++
			}
			if k1 >= len(line) || line[k1] != '"' {
				return false // an escape, upper case or other bytes: json.Unmarshal folds case
			}
			key := line[k0:k1]
			i = skipSpace(line, k1+1)
			if i >= len(line) || line[i] != ':' {
				return false
			}
			v0 := skipSpace(line, i+1)
			v1 := skipValue(line, v0, 0)
			if v1 < 0 {
				return false
			}
			val := line[v0:v1]
			f := replyField(key)
			if f >= 0 {
				if seen&(1<<f) != 0 {
					return false // a repeated key: the last wins in json.Unmarshal; leave it to it
				}
				seen |= 1 << f
				if !setReplyField(r, f, val) {
					return false
				}
			}
			i = skipSpace(line, v1)
			if i >= len(line) {
				return false
			}
			if line[i] == '}' {
				i++
				break
			}
			if line[i] != ',' {
				return false
			}
			i = skipSpace(line, i+1)
		}
	}
	return skipSpace(line, i) == len(line)
}

// The fields of reply, as fastReply numbers them.
const (
	fID = iota
	fType
	fMessage
	fObservation
	fReward
	fDone
	fInfo
	fOutcome
	fAction
	fActs
)

// replyField returns the number of reply's field named key exactly, or
// -1 for a key reply does not have.
func replyField(key []byte) int {
	switch string(key) {
	case "id":
		return fID
	case "type":
		return fType
	case "message":
		return fMessage
	case "observation":
		return fObservation
	case "reward":
		return fReward
	case "done":
		return fDone
	case "info":
		return fInfo
	case "outcome":
		return fOutcome
	case "action":
		return fAction
	case "acts":
		return fActs
	}
	return -1
}

// setReplyField sets field f of r to val, a valid JSON value; false if
// fastReply leaves val to json.Unmarshal.
func setReplyField(r *reply, f int, val []byte) bool {
	switch f {
	case fID:
		if !isInteger(val) {
			return false
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil {
			return false
		}
		r.ID = &n
	case fType, fMessage:
		s, ok := plainString(val)
		if !ok {
			return false
		}
		if f == fType {
			r.Type = s
		} else {
			r.Message = &s
		}
	case fReward:
		if val[0] != '-' && (val[0] < '0' || val[0] > '9') {
			return false
		}
		x, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			return false
		}
		r.Reward = &x
	case fDone:
		var b bool
		switch string(val) {
		case "true":
			b = true
		case "false":
		default:
			return false
		}
		r.Done = &b
	case fObservation:
		r.Observation = bytes.Clone(val)
	case fInfo:
		r.Info = bytes.Clone(val)
	case fOutcome:
		r.Outcome = bytes.Clone(val)
	case fAction:
		r.Action = bytes.Clone(val)
	case fActs:
		r.Acts = bytes.Clone(val)
	}
	return true
}

// isInteger reports whether val is a JSON number without a fraction or
// an exponent.
func isInteger(val []byte) bool {
	if len(val) > 0 && val[0] == '-' {
		val = val[1:]
	}
	if len(val) == 0 {
		return false
	}
	for _, c := range val {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainString returns the text of val if it is a JSON string of printable
// ASCII without escapes.
func plainString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	for _, c := range val[1 : len(val)-1] {
		if c < ' ' || c > '~' || c == '\\' {
			return "", false
		}
	}
	return string(val[1 : len(val)-1]), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxFastDepth bounds the nesting fastReply follows; deeper values go to
// json.Unmarshal (which allows 10,000 levels).
const maxFastDepth = 100

// skipValue returns the index just past the JSON value (RFC 8259) that
// starts at b[i], or -1 if there is none or it nests deeper than
// maxFastDepth. Strings are checked as encoding/json checks them: valid
// escapes, no control characters, any other bytes.
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxFastDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = skipString(b, i); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = skipValue(b, skipSpace(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	}
	return -1
}

func skipLiteral(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// skipString returns the index past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < ' ':
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// skipNumber returns the index past the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) int {
	digits := func(i int) int {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	if b[i] == '0' {
		i++
	} else if i = digits(i); i < 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}
