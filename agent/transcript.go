package agent

import (
	"encoding/json"

	"evolve/prompt/render"
)

// Transcript is an LLM episode's record (envs.Outcome.Trajectory, format
// envs.TrajectoryJSON, when envs.Episode.Record is set): the system
// message once, then every turn's requests. Recording never changes what
// is sent or played.
type Transcript struct {
	// System is the system message of every request.
	System string `json:"system"`
	// Turns are the episode's turns, in order.
	Turns []TurnRecord `json:"turns"`
}

// TurnRecord is one turn of a Transcript.
type TurnRecord struct {
	// Turn is the turn's number, from 1.
	Turn int `json:"turn"`
	// Requests are the turn's model calls: the first, then the
	// corrections.
	Requests []RequestRecord `json:"requests"`
	// Action is the index of the action taken in the environment's
	// vocabulary, -1 when the turn fell back.
	Action int `json:"action"`
	// Fallback reports whether no reply named an action, so the fallback
	// was taken.
	Fallback bool `json:"fallback,omitempty"`
}

// RequestRecord is one model call of a turn.
type RequestRecord struct {
	// Messages are the request's messages after the system message
	// (history, then the turn's or the correction's user message).
	Messages []render.Message `json:"messages"`
	// Reply is the model's text ("" when Unusable).
	Reply string `json:"reply"`
	// Unusable is the kind of an unusable reply ("" for a reply).
	Unusable string `json:"unusable,omitempty"`
	// Action is the index of the action parsed from the reply, -1 if none.
	Action int `json:"action"`
	// Error is why the reply named no action (sent back as a
	// correction), "" when it named one.
	Error string `json:"error,omitempty"`
}

// Record makes the session keep a Transcript of its turns (see
// Transcript); call it before the first Choose.
func (s *Session) Record() { s.tr = &Transcript{} }

// Transcript returns the session's Transcript as JSON, nil if Record was
// not called.
func (s *Session) Transcript() json.RawMessage {
	if s.tr == nil {
		return nil
	}
	data, err := json.Marshal(s.tr)
	if err != nil { // plain structs always encode
		panic("agent: encoding a transcript: " + err.Error())
	}
	return data
}

// recordRequest adds a request to the turn being recorded (a new turn
// when try is 0).
func (s *Session) recordRequest(turn, try int, msgs []render.Message, r ChatReply, action int, perr error) {
	if s.tr == nil {
		return
	}
	if len(msgs) > 0 && s.tr.System == "" {
		s.tr.System = msgs[0].Content
	}
	if try == 0 {
		s.tr.Turns = append(s.tr.Turns, TurnRecord{Turn: turn, Action: -1})
	}
	t := &s.tr.Turns[len(s.tr.Turns)-1]
	rr := RequestRecord{Messages: append([]render.Message(nil), msgs[1:]...), Reply: r.Content, Unusable: r.Unusable, Action: action}
	if perr != nil {
		rr.Error, rr.Action = perr.Error(), -1
	}
	t.Requests = append(t.Requests, rr)
	if perr == nil {
		t.Action = action
	}
}

// recordFallback marks the turn being recorded as fallen back.
func (s *Session) recordFallback() {
	if s.tr != nil && len(s.tr.Turns) > 0 {
		s.tr.Turns[len(s.tr.Turns)-1].Fallback = true
	}
}
