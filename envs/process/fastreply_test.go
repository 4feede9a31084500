package process

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fastReplyCases are lines fastReply decodes itself (fast true) or leaves
// to json.Unmarshal (fast false).
var fastReplyCases = []struct {
	line string
	fast bool
}{
	{`{"id":2,"type":"action","action":"wait"}`, true},
	{`{"id":2,"type":"step","observation":{"position":0,"turn":1,"hazard_ahead":false},"reward":0,"done":false,"info":{}}`, true},
	{`{"id":12,"type":"step","observation":null,"reward":89,"done":true,"info":{},"outcome":{"score":89,"end_reason":"goal","cause":"none","metrics":{"turns":11}}}`, true},
	{` { "id" : -0 , "type" : "ok" , "extra_key" : [1, -2.5e+3, "é\u00e9\n", true, null, {}] } `, true},
	{`{"id":7,"type":"error","message":"ValueError: no"}`, true},
	{`{"id":1,"type":"observation","observation":"a\"b\\c\/\u0041"}`, true},
	{`{}`, true},
	{`{"id":3,"type":"outcome","acts":11,"outcome":{"score":89,"end_reason":"goal","cause":"none","metrics":{"turns":11}}}`, true},
	{`{"id":3,"type":"outcome","acts":1.5}`, true},     // acts is checked by parseActs
	{`{"id":1,"reward":1e400}`, false},                 // out of float64's range: an error
	{`{"id":1.5,"type":"ok"}`, false},                  // not an int64
	{`{"id":99999999999999999999,"type":"ok"}`, false}, // out of int64's range
	{`{"ID":1,"type":"ok"}`, false},                    // json.Unmarshal folds case
	{`{"id":1,"id":2,"type":"ok"}`, false},             // a repeated key: the last wins
	{`{"id":1,"type":"caf\u00e9"}`, false},             // an escaped string
	{`{"id":null,"type":"ok"}`, false},
	{`{"id":1,"done":1}`, false},
	{`{"id":1,"type":"ok"} x`, false},
	{`{"id":1,"type":"ok",}`, false},
	{`{"id":1,"observation":[1,2,]}`, false},
	{`{"id":1,"observation":01}`, false},
	{`{"id":1,"observation":"\x"}`, false},
	{"{\"id\":1,\"observation\":\"a\tb\"}", false},
	{`{"id":1,"observation":NaN}`, false},
	{`[1]`, false},
	{``, false},
	{`{"id":1,"type":"ok"`, false},
}

// TestFastReply: fastReply decodes the usual replies itself, leaves the
// others to json.Unmarshal, and what it decodes is what json.Unmarshal
// decodes.
func TestFastReply(t *testing.T) {
	for _, tt := range fastReplyCases {
		var got reply
		fast := fastReply([]byte(tt.line), &got)
		if fast != tt.fast {
			t.Errorf("fastReply(%s) = %v, want %v", tt.line, fast, tt.fast)
		}
		if fast {
			checkLikeJSON(t, tt.line, &got)
		}
	}
}

func checkLikeJSON(t *testing.T, line string, got *reply) {
	t.Helper()
	var want reply
	if err := json.Unmarshal([]byte(line), &want); err != nil {
		t.Fatalf("fastReply decoded %q, which json.Unmarshal refuses: %v", line, err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("fastReply(%q):\n got %+v\nwant %+v (json.Unmarshal)", line, *got, want)
	}
}

// FuzzFastReply: whenever fastReply decodes a line, json.Unmarshal
// accepts it and decodes the same reply.
func FuzzFastReply(f *testing.F) {
	for _, tt := range fastReplyCases {
		f.Add([]byte(tt.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got reply
		if fastReply(line, &got) {
			checkLikeJSON(t, string(line), &got)
		}
	})
}
