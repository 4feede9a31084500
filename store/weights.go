package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"evolve/prompt"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"evolve/internal/atomicfile"
	"evolve/online"
)

// The files of a store's online weights, beside versions.json.
const (
	// WeightsFile is the checkpoint of every version's edge weight and
	// rollback detector (a Weights, JSON), replaced atomically.
	WeightsFile = "weights.json"
	// ObservationLog is the append-only log of events (JSON lines, one
	// Event each) from which WeightsFile is recomputed (ReplayWeights).
	ObservationLog = "observations.jsonl"
	// WeightsSchema is the schema number of WeightsFile.
	WeightsSchema = 1
)

// Errors of the weights that callers branch on.
var (
	// ErrWeightsConfig: an Observe with an alpha or rollback rule other
	// than the ones the store's observation log was started with.
	ErrWeightsConfig = errors.New("weights config differs from the store's")
	// ErrObservationLog: the observation log and the weights checkpoint
	// disagree (a log shorter than what the checkpoint applied, a line
	// that is not an event, an event out of sequence, or a logged score or
	// weight that its replay does not reproduce).
	ErrObservationLog = errors.New("observation log does not replay")
)

// WeightsConfig is how observations move weights: the EMA's alpha and
// the auto-rollback rule. A store's observation log starts with it and
// keeps it.
type WeightsConfig struct {
	Alpha float64             `json:"alpha"` // in (0, 1]
	Rule  online.RollbackRule `json:"rule"`
}

// DefaultWeightsConfig is the design's alpha 0.1 with
// online.DefaultRollbackRule.
func DefaultWeightsConfig() WeightsConfig {
	return WeightsConfig{Alpha: online.DefaultAlpha, Rule: online.DefaultRollbackRule}
}

// Validate returns an error naming the first field out of range.
func (c WeightsConfig) Validate() error {
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return fmt.Errorf("alpha must be in (0, 1]: %v", c.Alpha)
	}
	return c.Rule.Validate()
}

// RollbackEvidence is what an automatic rolled_back edge records: the
// detector's evidence and the alarm's event in the observation log.
type RollbackEvidence struct {
	online.Evidence
	LogSeq int64 `json:"log_seq"` // Seq of the alarm event in observations.jsonl
}

// EventKind is the kind of an observation log event.
type EventKind string

// The events of the observation log.
const (
	// EventConfig starts the log: the WeightsConfig of every later event.
	EventConfig EventKind = "config"
	// EventObserve is one observation of a version: its score moves the
	// version's weight (EMA) and feeds its detector.
	EventObserve EventKind = "observe"
	// EventAlarm follows the observation that made a version's detector
	// alarm: its evidence, and the rollback it caused (if any).
	EventAlarm EventKind = "alarm"
	// EventReset restarts the detector of a version promoted again after
	// an alarm (a new baseline); its weight is kept.
	EventReset EventKind = "reset"
)

// Event is one line of the observation log. Which fields are set depends
// on Kind.
type Event struct {
	Seq  int64     `json:"seq"`  // position in the log, from 1
	Kind EventKind `json:"kind"` // config, observe, alarm or reset
	Time time.Time `json:"time"` // when it was recorded (replay ignores it)
	// Config: EventConfig's.
	Config *WeightsConfig `json:"config,omitempty"`
	// Version: the pinned version observed, alarmed or reset.
	Version *prompt.Ref `json:"version,omitempty"`
	// RequestID: the caller's id of the interaction (EventObserve;
	// optional).
	RequestID string `json:"request_id,omitempty"`
	// Observation, Score and Weight: EventObserve's observation, its
	// score (online.Observation.Score) and the version's weight after it.
	Observation *online.Observation `json:"observation,omitempty"`
	Score       *float64            `json:"score,omitempty"`
	Weight      *float64            `json:"weight,omitempty"`
	// EventAlarm's evidence, the version's branch, the version HEAD was
	// rolled back to (nil if none) and, if none, why.
	Evidence     *online.Evidence `json:"evidence,omitempty"`
	Branch       string           `json:"branch,omitempty"`
	RolledBackTo *prompt.Version  `json:"rolled_back_to,omitempty"`
	Note         string           `json:"note,omitempty"`
	// GraphSeq: EventAlarm's store sequence number after the alarm (its
	// rolled_back edge included); a version made HEAD by a later edge is
	// reset.
	GraphSeq int64 `json:"graph_seq,omitempty"`
}

// Alarm is a version's last detector alarm (see EventAlarm).
type Alarm struct {
	Seq          int64           `json:"seq"`                      // the alarm event's Seq
	Time         time.Time       `json:"time"`                     // when it alarmed
	Evidence     online.Evidence `json:"evidence"`                 // the detector's evidence
	Branch       string          `json:"branch"`                   // the version's branch
	RolledBackTo *prompt.Version `json:"rolled_back_to,omitempty"` // the HEAD it restored; nil if it rolled nothing back
	Note         string          `json:"note,omitempty"`           // why nothing was rolled back
	GraphSeq     int64           `json:"graph_seq"`                // the store's sequence number after the alarm
}

// VersionWeight is one version's online state.
type VersionWeight struct {
	Weight       float64              `json:"weight"`          // EMA edge weight in [0, 1]; online.InitialWeight before any observation
	Observations int                  `json:"observations"`    // observations applied
	ScoreSum     float64              `json:"score_sum"`       // sum of their scores
	Detector     online.DetectorState `json:"detector"`        // the rollback detector, since the last reset
	Alarm        *Alarm               `json:"alarm,omitempty"` // the last alarm; nil if none
	Resets       int                  `json:"resets"`          // detector resets (promotions after an alarm)
}

// MeanScore is ScoreSum / Observations (NaN with none).
func (vw *VersionWeight) MeanScore() float64 { return vw.ScoreSum / float64(vw.Observations) }

// Weights is the online state of a store's versions: WeightsFile's
// content, and what ReplayWeights computes from the observation log.
type Weights struct {
	Schema  int           `json:"schema"`   // WeightsSchema
	Config  WeightsConfig `json:"config"`   // the log's config (zero before any event)
	Events  int64         `json:"events"`   // Seq of the last event applied
	LogSize int64         `json:"log_size"` // bytes of the log applied
	// Versions are keyed by pinned reference ("slug@vX.Y.Z"); a version
	// never observed is absent (its weight is online.InitialWeight).
	Versions map[prompt.Ref]*VersionWeight `json:"versions"`
}

func newWeights() *Weights {
	return &Weights{Schema: WeightsSchema, Versions: map[prompt.Ref]*VersionWeight{}}
}

// Weight returns the edge weight of version v of slug:
// online.InitialWeight if it has no observation.
func (w *Weights) Weight(slug string, v prompt.Version) float64 {
	if vw, ok := w.Versions[prompt.Ref{Slug: slug, Version: v}]; ok {
		return vw.Weight
	}
	return online.InitialWeight
}

// Of returns the state of version v of slug, nil if never observed.
func (w *Weights) Of(slug string, v prompt.Version) *VersionWeight {
	return w.Versions[prompt.Ref{Slug: slug, Version: v}]
}

// apply folds one event into w: the whole semantics of the log. An
// observe event whose Score or Weight is nil (being recorded) gets them
// filled; one with them set (being replayed) must reproduce them
// exactly. Errors wrap ErrObservationLog or ErrWeightsConfig.
func (w *Weights) apply(ev *Event) error {
	if ev.Seq != w.Events+1 {
		return fmt.Errorf("%w: event %d after event %d", ErrObservationLog, ev.Seq, w.Events)
	}
	if ev.Kind != EventConfig && w.Events == 0 {
		return fmt.Errorf("%w: event 1 is %s, not config", ErrObservationLog, ev.Kind)
	}
	if ev.Kind != EventConfig && (ev.Version == nil || !ev.Version.Pinned()) {
		return fmt.Errorf("%w: %s event %d names no pinned version", ErrObservationLog, ev.Kind, ev.Seq)
	}
	switch ev.Kind {
	case EventConfig:
		if ev.Config == nil {
			return fmt.Errorf("%w: config event %d without a config", ErrObservationLog, ev.Seq)
		}
		if err := ev.Config.Validate(); err != nil {
			return fmt.Errorf("%w: event %d: %v", ErrObservationLog, ev.Seq, err)
		}
		if w.Events > 0 && *ev.Config != w.Config {
			return fmt.Errorf("%w: event %d sets %+v, the log has %+v", ErrWeightsConfig, ev.Seq, *ev.Config, w.Config)
		}
		w.Config = *ev.Config
	case EventObserve:
		if ev.Observation == nil {
			return fmt.Errorf("%w: observe event %d without an observation", ErrObservationLog, ev.Seq)
		}
		if err := ev.Observation.Validate(); err != nil {
			return fmt.Errorf("%w: event %d: %v", ErrObservationLog, ev.Seq, err)
		}
		vw := w.Versions[*ev.Version]
		if vw == nil {
			vw = &VersionWeight{Weight: online.InitialWeight}
			w.Versions[*ev.Version] = vw
		}
		score := ev.Observation.Score()
		weight := online.EMA(vw.Weight, score, w.Config.Alpha)
		switch {
		case ev.Score == nil && ev.Weight == nil:
			ev.Score, ev.Weight = &score, &weight
		case ev.Score == nil || ev.Weight == nil || *ev.Score != score || *ev.Weight != weight:
			return fmt.Errorf("%w: observe event %d of %s: logged score %v weight %v, replay gives %v and %v",
				ErrObservationLog, ev.Seq, ev.Version, deref(ev.Score), deref(ev.Weight), score, weight)
		}
		vw.Weight = weight
		vw.Observations++
		vw.ScoreSum += score
		d := online.RestoreDetector(w.Config.Rule, vw.Detector)
		d.Add(score)
		vw.Detector = d.State()
	case EventAlarm:
		vw := w.Versions[*ev.Version]
		if vw == nil || vw.Detector.Fired == nil || ev.Evidence == nil || *ev.Evidence != *vw.Detector.Fired {
			return fmt.Errorf("%w: alarm event %d of %s: its detector did not alarm so", ErrObservationLog, ev.Seq, ev.Version)
		}
		vw.Alarm = &Alarm{Seq: ev.Seq, Time: ev.Time, Evidence: *ev.Evidence, Branch: ev.Branch, RolledBackTo: ev.RolledBackTo, Note: ev.Note, GraphSeq: ev.GraphSeq}
	case EventReset:
		vw := w.Versions[*ev.Version]
		if vw == nil {
			return fmt.Errorf("%w: reset event %d of %s, never observed", ErrObservationLog, ev.Seq, ev.Version)
		}
		vw.Detector = online.DetectorState{}
		vw.Resets++
	default:
		return fmt.Errorf("%w: event %d: unknown kind %q", ErrObservationLog, ev.Seq, ev.Kind)
	}
	w.Events = ev.Seq
	return nil
}

func deref(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// ReplayWeights recomputes the weights from an observation log (JSON
// lines, one Event each, from the first): the weights are a pure
// function of the log. A final line without its newline (an append cut
// short by a crash) is ignored; LogSize counts the bytes of the lines
// applied. Errors wrap ErrObservationLog (with the line number) or
// ErrWeightsConfig.
func ReplayWeights(r io.Reader) (*Weights, error) {
	w := newWeights()
	if err := w.replay(r, 0); err != nil {
		return nil, err
	}
	return w, nil
}

// replay applies the complete lines of r, the log from byte w.LogSize
// on, whose first line is line firstLine+1 of the log (errors name the
// byte offset instead if firstLine < 0); it calls each function of also
// with every event applied.
func (w *Weights) replay(r io.Reader, firstLine int, also ...func(*Event) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	line := firstLine
	for {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil // an incomplete last line (torn append) is not applied
		}
		if err != nil {
			return err
		}
		line++
		var ev Event
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		where := fmt.Sprintf("%s byte %d", ObservationLog, w.LogSize)
		if firstLine >= 0 {
			where = fmt.Sprintf("%s line %d", ObservationLog, line)
		}
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("%s: %w: %v", where, ErrObservationLog, err)
		}
		if err := w.apply(&ev); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		w.LogSize += int64(len(b))
		for _, f := range also {
			if err := f(&ev); err != nil {
				return err
			}
		}
	}
}

// ReplayWeights recomputes the store's weights from its observation log
// (see the function ReplayWeights); with no log, empty weights.
func (s *Store) ReplayWeights() (*Weights, error) {
	f, err := os.Open(filepath.Join(s.dir, ObservationLog))
	if errors.Is(err, fs.ErrNotExist) {
		return newWeights(), nil
	}
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	defer f.Close()
	w, err := ReplayWeights(f)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	return w, nil
}

// Weights returns the store's current weights: WeightsFile, with any
// complete events of the log it has not applied yet (left by a writer
// that crashed between the log and the checkpoint) applied in memory.
// It takes no lock. A store without weights gives empty Weights (every
// weight online.InitialWeight). Errors: a checkpoint that does not
// decode; ErrObservationLog.
func (s *Store) Weights() (*Weights, error) {
	w, err := s.readWeights()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(s.dir, ObservationLog))
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil
	}
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	defer f.Close()
	if _, err := f.Seek(w.LogSize, io.SeekStart); err != nil {
		return nil, s.errorf("%w", err)
	}
	if err := w.replay(f, -1); err != nil {
		return nil, s.errorf("%w", err)
	}
	return w, nil
}

// readWeights reads WeightsFile (empty Weights if there is none).
func (s *Store) readWeights() (*Weights, error) {
	path := filepath.Join(s.dir, WeightsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newWeights(), nil
	}
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	w := newWeights()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(w); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if w.Schema != WeightsSchema {
		return nil, fmt.Errorf("%s: schema %d, want %d", path, w.Schema, WeightsSchema)
	}
	if w.Versions == nil {
		w.Versions = map[prompt.Ref]*VersionWeight{}
	}
	return w, nil
}

// Observed is one observation to record (see Store.Observe).
type Observed struct {
	Slug        string             // the prompt's slug
	Version     prompt.Version     // the version that served the interaction
	RequestID   string             // the caller's id of the interaction; optional, at most 200 bytes
	Observation online.Observation // what the interaction told
	Time        time.Time          // when it was observed (recorded in the log; replay ignores it)
}

// Outcome is what recording one observation did.
type Outcome struct {
	Seq    int64   // the observe event's Seq in the log
	Score  float64 // the observation's score
	Weight float64 // the version's weight after it
	// Alarm is set when this observation made the version's detector
	// alarm (and, if the version was HEAD of its branch, rolled it back).
	Alarm *Alarm
}

// Observe records a batch of observations, in order, under the store's
// lock (the flock on versions.lock that every writer of the index
// holds): for each, the version's weight moves by the EMA of cfg.Alpha
// and its rollback detector (cfg.Rule) takes the score. When a detector
// alarms for the HEAD of a branch, HEAD is rolled back to the version it
// superseded with a rolled_back edge carrying the evidence
// (RollbackEvidence), and the version is excluded from selection (see
// Graph.AutoRolledBack) until it is made HEAD again by hand (Promote);
// an alarm for a version that is not HEAD, or is its branch's first
// version, rolls nothing back and is recorded with a note. A version
// made HEAD again after its alarm gets its detector reset (a reset
// event) at its next observation.
//
// Every event is appended to ObservationLog (and synced) before the
// index and WeightsFile are replaced (atomically), all under the lock,
// so concurrent observers (goroutines or processes) lose no update, and
// replaying the log (ReplayWeights) gives exactly WeightsFile. Events a
// crash left in the log but not in WeightsFile are applied by the next
// Observe (and seen by Weights).
//
// Errors, with nothing recorded: an invalid cfg; ErrWeightsConfig if the
// store's log was started with another config; an invalid observation,
// slug or request id (naming its index in the batch); ErrNoVersion for
// a version the store does not have; ErrObservationLog.
func (s *Store) Observe(cfg WeightsConfig, batch []Observed) ([]Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, s.errorf("observe: %w", err)
	}
	for i, o := range batch {
		if err := o.Observation.Validate(); err != nil {
			return nil, s.errorf("observation %d (%s@%s): %w", i, o.Slug, o.Version, err)
		}
		if len(o.RequestID) > 200 {
			return nil, s.errorf("observation %d (%s@%s): request id longer than 200 bytes", i, o.Slug, o.Version)
		}
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var (
		w   *Weights
		out []Outcome
	)
	err = s.updateLocked(func(tx *txn) error {
		g := tx.graph()
		for i, o := range batch {
			if _, ok := g.Find(o.Slug, o.Version); !ok {
				return s.errorf("observation %d: %s@%s: %w", i, o.Slug, o.Version, ErrNoVersion)
			}
		}
		var err error
		if w, err = s.recoverWeights(tx); err != nil {
			return err
		}
		if w.Events > 0 && w.Config != cfg {
			return s.errorf("observe: %w: the log has alpha %v and rule %+v, asked for alpha %v and rule %+v",
				ErrWeightsConfig, w.Config.Alpha, w.Config.Rule, cfg.Alpha, cfg.Rule)
		}
		var buf bytes.Buffer
		emit := func(ev Event) (*Event, error) {
			ev.Seq = w.Events + 1
			if err := w.apply(&ev); err != nil {
				return nil, err
			}
			line, err := json.Marshal(ev)
			if err != nil {
				return nil, err
			}
			buf.Write(line)
			buf.WriteByte('\n')
			return &ev, nil
		}
		if w.Events == 0 {
			if _, err := emit(Event{Kind: EventConfig, Time: tx.now, Config: &cfg}); err != nil {
				return err
			}
		}
		out = make([]Outcome, len(batch))
		for i, o := range batch {
			ref := prompt.Ref{Slug: o.Slug, Version: o.Version}
			t := o.Time.UTC()
			if t.IsZero() {
				t = tx.now
			}
			if vw := w.Versions[ref]; vw != nil && vw.Alarm != nil && vw.Detector.Fired != nil && madeHeadAfter(tx.graph(), ref, vw.Alarm.GraphSeq) {
				if _, err := emit(Event{Kind: EventReset, Time: t, Version: &ref}); err != nil {
					return err
				}
			}
			armed := w.Versions[ref] == nil || w.Versions[ref].Detector.Fired == nil
			obs := o.Observation
			ev, err := emit(Event{Kind: EventObserve, Time: t, Version: &ref, RequestID: o.RequestID, Observation: &obs})
			if err != nil {
				return err
			}
			out[i] = Outcome{Seq: ev.Seq, Score: *ev.Score, Weight: *ev.Weight}
			vw := w.Versions[ref]
			if !armed || vw.Detector.Fired == nil {
				continue // no alarm now
			}
			alarm := Event{Kind: EventAlarm, Time: t, Version: &ref, Evidence: vw.Detector.Fired, Seq: w.Events + 1}
			alarm.Branch, alarm.RolledBackTo, alarm.Note, err = tx.autoRollback(ref, *vw.Detector.Fired, alarm.Seq)
			if err != nil {
				return err
			}
			alarm.GraphSeq = tx.ix.Seq
			if _, err := emit(alarm); err != nil {
				return err
			}
			out[i].Alarm = vw.Alarm
		}
		return s.appendLog(w, buf.Bytes())
	})
	if err != nil {
		return nil, err
	}
	if err := s.writeWeights(w); err != nil {
		return nil, err
	}
	return out, nil
}

// recoverWeights reads the checkpoint and applies the log's events it
// lacks (re-making an alarm's rollback edge if the index lost it); a
// torn last line is cut off the log. The caller holds the lock.
func (s *Store) recoverWeights(tx *txn) (*Weights, error) {
	w, err := s.readWeights()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(s.dir, ObservationLog)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if w.LogSize > 0 {
			return nil, s.errorf("%w: %s is missing, %s has applied %d bytes of it", ErrObservationLog, ObservationLog, WeightsFile, w.LogSize)
		}
		return w, nil
	}
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	switch {
	case st.Size() < w.LogSize:
		return nil, s.errorf("%w: %s has %d bytes, %s has applied %d (the log was truncated or replaced)", ErrObservationLog, ObservationLog, st.Size(), WeightsFile, w.LogSize)
	case st.Size() == w.LogSize:
		return w, nil
	}
	if _, err := f.Seek(w.LogSize, io.SeekStart); err != nil {
		return nil, s.errorf("%w", err)
	}
	err = w.replay(f, -1, func(ev *Event) error {
		if ev.Kind != EventAlarm || ev.RolledBackTo == nil {
			return nil
		}
		for _, e := range tx.ix.Edges {
			if e.Kind == RolledBack && e.Evidence != nil && e.Evidence.LogSeq == ev.Seq {
				return nil
			}
		}
		if head, _ := tx.graph().Head(ev.Version.Slug, ev.Branch); head == ev.Version.Version {
			_, _, _, err := tx.autoRollback(*ev.Version, *ev.Evidence, ev.Seq)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	if w.LogSize < st.Size() { // a torn append: it was never applied
		if err := f.Truncate(w.LogSize); err != nil {
			return nil, s.errorf("cutting a torn line off %s: %w", ObservationLog, err)
		}
	}
	return w, nil
}

// appendLog appends data (whole event lines) to the log and syncs it;
// on failure it cuts the log back to w's size before the batch.
func (s *Store) appendLog(w *Weights, data []byte) error {
	path := filepath.Join(s.dir, ObservationLog)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return s.errorf("%w", err)
	}
	defer f.Close()
	before := w.LogSize
	if _, err := f.Write(data); err != nil {
		f.Truncate(before)
		return s.errorf("appending to %s: %w", ObservationLog, err)
	}
	if err := f.Sync(); err != nil {
		f.Truncate(before)
		return s.errorf("syncing %s: %w", ObservationLog, err)
	}
	w.LogSize += int64(len(data))
	return nil
}

// writeWeights replaces WeightsFile atomically.
func (s *Store) writeWeights(w *Weights) error {
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(s.dir, WeightsFile), append(data, '\n'), 0o644)
}

// autoRollback rolls HEAD of ref's branch back from ref, if ref is HEAD
// and superseded a version, with a rolled_back edge carrying the
// evidence. It returns the branch, the new HEAD (nil if nothing was
// rolled back) and, then, why.
func (tx *txn) autoRollback(ref prompt.Ref, ev online.Evidence, logSeq int64) (string, *prompt.Version, string, error) {
	g := tx.graph()
	vi, _ := g.Find(ref.Slug, ref.Version)
	head, _ := g.Head(ref.Slug, vi.Branch)
	if head != ref.Version {
		return vi.Branch, nil, fmt.Sprintf("not rolled back: not HEAD of branch %s (HEAD is %s)", vi.Branch, head), nil
	}
	if _, ok := g.Previous(ref.Slug, head); !ok {
		return vi.Branch, nil, fmt.Sprintf("not rolled back: the first version of branch %s", vi.Branch), nil
	}
	reason := fmt.Sprintf("auto-rollback: window mean %.4f < baseline mean %.4f - %g sigma (%.4f) sqrt(1/%d + 1/%d) = %.4f",
		ev.RecentMean, ev.BaselineMean, ev.K, ev.Sigma, ev.Window, ev.Baseline, ev.Threshold)
	to, err := tx.rollback(ref.Slug, vi.Branch, prompt.Version{}, reason)
	if err != nil {
		if errors.Is(err, prompt.ErrCycle) {
			return vi.Branch, nil, "not rolled back: " + err.Error(), nil
		}
		return "", nil, "", err
	}
	tx.ix.Edges[len(tx.ix.Edges)-1].Evidence = &RollbackEvidence{Evidence: ev, LogSeq: logSeq}
	return vi.Branch, &to, "", nil
}

// madeHeadAfter reports whether an edge after seq made ref HEAD of its
// branch (supersedes or branched_from from it, rolled_back to it).
func madeHeadAfter(g *Graph, ref prompt.Ref, seq int64) bool {
	for _, e := range g.Edges {
		if e.Seq <= seq {
			continue
		}
		if (e.Kind == Supersedes || e.Kind == BranchedFrom) && e.From == ref || e.Kind == RolledBack && e.To == ref {
			return true
		}
	}
	return false
}

// AutoRolledBack reports whether version v of slug is excluded from
// online selection: an automatic rollback (a rolled_back edge with
// Evidence) moved HEAD away from it, and no later edge made it HEAD again
// (a promotion by hand: Store.Promote, or rollback --to it). It returns
// that rolled_back edge.
func (g *Graph) AutoRolledBack(slug string, v prompt.Version) (Edge, bool) {
	ref := prompt.Ref{Slug: slug, Version: v}
	var last Edge
	out := false
	for _, e := range g.Edges {
		switch {
		case e.Kind == RolledBack && e.From == ref && e.Evidence != nil:
			last, out = e, true
		case (e.Kind == Supersedes || e.Kind == BranchedFrom) && e.From == ref, e.Kind == RolledBack && e.To == ref:
			out = false
		}
	}
	return last, out
}

// Promotion is what Promote did, read under the same lock as the change:
// the branch whose HEAD moved, its HEAD before, and whether the promoted
// version had been rolled back automatically (online selection excluded
// it until now).
type Promotion struct {
	Branch      string
	From        prompt.Version
	WasExcluded bool
}

// Promote makes version v of slug HEAD of its branch by hand: back to it
// with a rolled_back edge (reason recorded) if it was HEAD before (e.g.
// a version an automatic rollback excluded), else with a supersedes edge
// (a candidate never HEAD). It returns what it did. A promoted version
// is selected again, and its detector starts a new baseline at its next
// observation. Errors: ErrNoVersion; v is HEAD already; those of
// Rollback and Supersede.
func (s *Store) Promote(slug string, v prompt.Version, reason string) (Promotion, error) {
	var p Promotion
	err := s.update(func(tx *txn) error {
		g := tx.graph()
		vi, ok := g.Find(slug, v)
		if !ok {
			return s.errorf("promote %s@%s: %w", slug, v, ErrNoVersion)
		}
		p.Branch = vi.Branch
		p.From, _ = g.Head(slug, vi.Branch)
		_, p.WasExcluded = g.AutoRolledBack(slug, v)
		if p.From == v {
			return s.errorf("promote %s@%s: it is HEAD of branch %s already", slug, v, vi.Branch)
		}
		if g.WasHead(slug, vi.Branch, v) {
			_, err := tx.rollback(slug, vi.Branch, v, reason)
			return err
		}
		return tx.supersede(slug, v)
	})
	return p, err
}
