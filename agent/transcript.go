package agent

import (
	"encoding/json"
)

// TranscriptKind is the "kind" of an LLM agent's trajectory (Transcript).
const TranscriptKind = "llm-transcript/v1"

// Transcript is the trajectory an LLM agent records when asked
// (envs.Episode.Record): per turn, each request's messages (the system
// prompt, the same in every request, is kept once), the model's reply,
// why a reply was rejected (the correction sent next), the action taken,
// and whether it was the fallback.
type Transcript struct {
	Kind   string           `json:"kind"`   // TranscriptKind
	System string           `json:"system"` // the system prompt of every request
	Turns  []TranscriptTurn `json:"turns"`
}

// TranscriptTurn is one turn of a Transcript.
type TranscriptTurn struct {
	Turn  int             `json:"turn"`  // from 1
	Tries []TranscriptTry `json:"tries"` // one per model call, at most LLMOptions.MaxTries
	// Action is the action taken, in the environment's words ("explore"),
	// the fallback's when no reply named one.
	Action string `json:"action"`
	// Fallback is true when no reply named an action.
	Fallback bool `json:"fallback,omitempty"`
}

// TranscriptTry is one model call of a turn.
type TranscriptTry struct {
	Messages []ChatMessage `json:"messages"` // the request's messages after the system prompt
	Reply    string        `json:"reply"`    // the model's reply
	// Rejected says why the reply named no action (the parser's error,
	// answered by a correction); "" for the accepted reply.
	Rejected string `json:"rejected,omitempty"`
}

// noteTry records one model call of turn (a no-op when not recording).
func (s *Session) noteTry(turn int, msgs []ChatMessage, reply string, perr error) {
	tr := s.tr
	if tr == nil {
		return
	}
	if n := len(tr.Turns); n == 0 || tr.Turns[n-1].Turn != turn {
		tr.Turns = append(tr.Turns, TranscriptTurn{Turn: turn})
	}
	if len(msgs) > 0 && msgs[0].Role == "system" {
		tr.System = msgs[0].Content
		msgs = msgs[1:]
	}
	t := TranscriptTry{Messages: append([]ChatMessage(nil), msgs...), Reply: reply}
	if perr != nil {
		t.Rejected = perr.Error()
	}
	last := &tr.Turns[len(tr.Turns)-1]
	last.Tries = append(last.Tries, t)
}

// NoteAction records the action a turn took, and whether it was the
// fallback (a no-op when the session does not record).
func (s *Session) NoteAction(turn int, action string, fallback bool) {
	tr := s.tr
	if tr == nil {
		return
	}
	if n := len(tr.Turns); n == 0 || tr.Turns[n-1].Turn != turn {
		tr.Turns = append(tr.Turns, TranscriptTurn{Turn: turn})
	}
	last := &tr.Turns[len(tr.Turns)-1]
	last.Action, last.Fallback = action, fallback
}

// Transcript returns the session's transcript as JSON, nil when the
// session does not record (LLMOptions.Record).
func (s *Session) Transcript() json.RawMessage {
	if s.tr == nil {
		return nil
	}
	data, _ := json.Marshal(s.tr)
	return data
}
