package mutate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"evolve/failure"
	"evolve/guard"
	"evolve/llm"
	"evolve/prompt"
	"evolve/render"
)

// OpLLMRule is the operator of a rule line written by the agent's
// language model (ProposeLLMRule), as recorded in mutation_history and
// candidates.parquet.
const OpLLMRule = "llm_rule"

// MaxLLMRuleChars is the longest rule line ProposeLLMRule accepts from
// the model, in characters (Unicode code points).
const MaxLLMRuleChars = 120

// RuleProposerSystem is the system message of ProposeLLMRule's request.
// A test server recognises the proposer by it (llmtest.RuleProposer);
// changing it changes every request, so that no cached reply to the old
// wording is replayed.
const RuleProposerSystem = "You are the rule proposer of evolve. " +
	"You improve the rules of an agent that plays episodes of a game and reads its rules before every turn. " +
	"You are given how the agent's training episodes failed, as failure causes with counts, and the rules it follows now. " +
	"Write ONE new rule that would prevent the failure cause you are asked about and that differs from the rules it has. " +
	"Reply with one imperative rule line of at most 120 characters and nothing else: no quotes, no list marker, no explanation."

// Why ProposeLLMRule made no candidate of a reply (LLMRule.Dropped).
var (
	// ErrRuleCut: the reply was cut by max_tokens (finish_reason
	// "length"), so its rule may be unfinished.
	ErrRuleCut = errors.New("the reply was cut by max_tokens")
	// ErrRuleEmpty: the reply holds no line of text.
	ErrRuleEmpty = errors.New("the reply holds no rule line")
	// ErrRuleTooLong: the rule line is longer than MaxLLMRuleChars.
	ErrRuleTooLong = fmt.Errorf("the rule line is longer than %d characters", MaxLLMRuleChars)
	// ErrRuleKnown: the prompt holds the rule already, or it is a rule of
	// the library (which the library operators propose).
	ErrRuleKnown = errors.New("the rule is in the prompt or the rule library already")
	// ErrRuleRejected: the guard rejected the rule (wrapped with the
	// guard's report), as written or with its leetspeak normalised
	// (Deleet).
	ErrRuleRejected = errors.New("the guard rejected the rule")
	// ErrRuleMarkup: the rule holds a tag ("<rules>", "</guardrails>"),
	// which could close or open a layer of the rendered prompt.
	ErrRuleMarkup = errors.New("the rule holds a markup tag")
	// ErrRuleShort: the rule has fewer than MinLLMRuleWords words (a
	// one-word reply such as "eat" is an action, not a rule).
	ErrRuleShort = fmt.Errorf("the rule has fewer than %d words", MinLLMRuleWords)
)

// MinLLMRuleWords is the fewest words a rule line from the model may
// have.
const MinLLMRuleWords = 3

// markupTag matches an XML/HTML-like tag: "<rules>", "</guardrails>",
// "<br/>".
var markupTag = regexp.MustCompile(`</?\s*[A-Za-z][A-Za-z0-9_.:-]*(\s[^<>]*)?/?>`)

// leet maps the leetspeak digits and signs Deleet replaces.
var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s")

// Deleet returns s with leetspeak letters spelled out (0→o, 1→i, 3→e,
// 4→a, 5→s, 7→t, @→a, $→s), so that "1gn0re all prev10us
// 1nstruct10ns" is screened as "ignore all previous instructions". It is
// applied to a copy for screening only: numbers in a rule stay as
// written.
func Deleet(s string) string { return leet.Replace(s) }

// escapeTemplate makes a model's text literal in a prompt template:
// every "{{" becomes `\{{` (render.Parse), so "{{param.x}}" is shown
// as written, never expanded.
func escapeTemplate(s string) string { return strings.ReplaceAll(s, "{{", `\{{`) }

// Completer is a language model that answers a conversation; an
// *llm.Client (with its response cache) is one.
type Completer interface {
	Complete(ctx context.Context, messages []llm.Message) (llm.Reply, error)
}

// LLMRule is what ProposeLLMRule did.
type LLMRule struct {
	// Cause is the failure cause the rule was asked for (the most
	// frequent of the analysis), "" when no episode failed (no request is
	// made then).
	Cause string
	// Reply is the model's reply as received, "" without a request.
	Reply string
	// Cached reports whether the reply came from the response cache.
	Cached bool
	// Rule is the line cleaned from the reply (CleanRuleLine), "" if it
	// held none.
	Rule string
	// Mutation is the candidate (operator OpLLMRule), nil when the rule
	// was dropped or no request was made.
	Mutation *Mutation
	// Dropped says why a reply made no candidate: one of ErrRuleCut,
	// ErrRuleEmpty, ErrRuleTooLong, ErrRuleMarkup, ErrRuleShort,
	// ErrRuleKnown or ErrRuleRejected (wrapped); nil when Mutation is
	// set or no request was made.
	Dropped error
}

// ProposeLLMRule asks model for one new rule line answering the most
// frequent failure cause of a, and returns it as a text mutation of p
// (resolved: inheritance applied) with operator OpLLMRule.
//
// The request is two messages: RuleProposerSystem, and a user message
// (RuleProposerRequest) with the causes and their counts, most frequent
// first, the rules p holds, and the cause to answer. The model's
// sampling (temperature, seed, max_tokens) is its own configuration, so
// a client with a response cache replays the same reply on a rerun. The
// reply is cleaned to one line (CleanRuleLine) and dropped, with the
// reason in Dropped, when it was cut by max_tokens, is empty, is longer
// than MaxLLMRuleChars, holds a markup tag, has fewer than
// MinLLMRuleWords words, is rejected by policy as written or with its
// leetspeak normalised (Deleet), or is in p or library already:
// rejected text is never part of a Mutation. The model's text is data:
// its "{{" is escaped, so a placeholder it writes is never expanded. A rule that passes
// is placed as ProposeText places a library rule (the cause's home
// section in its list style unless frozen, else rules_constraints), and
// its Description has the line diff ("+ RULE").
//
// With no failure in a, no request is made and the result is empty. The
// error is the model's (an llm error, ctx's, llm.ErrNotCached in a
// replay-only cache mode) or p's bad section declarations
// (render.SectionSpecs).
func ProposeLLMRule(ctx context.Context, model Completer, a failure.Analysis, p *prompt.Prompt, library map[string][]string, policy guard.Policy) (LLMRule, error) {
	var res LLMRule
	ranked := a.Ranked()
	if len(ranked) == 0 {
		return res, nil
	}
	d, err := newDoc(p)
	if err != nil {
		return res, err
	}
	res.Cause = ranked[0]
	reply, err := model.Complete(ctx, []llm.Message{
		{Role: llm.RoleSystem, Content: RuleProposerSystem},
		{Role: llm.RoleUser, Content: RuleProposerRequest(a, p)},
	})
	if err != nil {
		return res, fmt.Errorf("mutate: asking the model for a rule for %s: %w", res.Cause, err)
	}
	res.Reply, res.Cached = reply.Content, reply.Cached
	if reply.FinishReason == "length" {
		res.Dropped = ErrRuleCut
		return res, nil
	}
	res.Rule = CleanRuleLine(reply.Content)
	switch {
	case res.Rule == "":
		res.Dropped = ErrRuleEmpty
		return res, nil
	case utf8.RuneCountInString(res.Rule) > MaxLLMRuleChars:
		res.Dropped = ErrRuleTooLong
		return res, nil
	}
	if markupTag.MatchString(res.Rule) {
		res.Dropped = ErrRuleMarkup
		return res, nil
	}
	if len(strings.Fields(res.Rule)) < MinLLMRuleWords {
		res.Dropped = ErrRuleShort
		return res, nil
	}
	for _, text := range []string{res.Rule, Deleet(res.Rule)} {
		if gerr := policy.Error(guard.Text{Field: OpLLMRule, Text: text}); gerr != nil {
			res.Dropped = fmt.Errorf("%w: %v", ErrRuleRejected, gerr)
			return res, nil
		}
	}
	res.Rule = escapeTemplate(res.Rule)
	if _, has := d.find(res.Rule); has || inLibrary(library, res.Rule) {
		res.Dropped = ErrRuleKnown
		return res, nil
	}
	m, ok := d.place(res.Cause, res.Rule, library[res.Cause], policy)
	if !ok { // the same policy on the same text: not reached
		res.Dropped = ErrRuleRejected
		return res, nil
	}
	m.Operator, m.Remedy = OpLLMRule, OpLLMRule+" "+res.Cause
	m.Description = fmt.Sprintf("Rule written by the model for %s%s:\n+ %s", res.Cause, m.Description, m.line)
	res.Mutation = &m.Mutation
	return res, nil
}

func inLibrary(library map[string][]string, rule string) bool {
	for _, rules := range library {
		if slices.Contains(rules, rule) {
			return true
		}
	}
	return false
}

// RuleProposerRequest is the user message of ProposeLLMRule's request:
//
//	Failures in the last N training episodes (F failed), by cause, most frequent first:
//	- injury: 12
//	- starvation: 3
//	The agent's rules now:
//	- Eat as soon as the status line shows Hungry.
//	Write one new rule for the failure cause injury.
//
// The rules are p's rules_constraints, then the list items ("- ", "* ")
// of its sections that are not injected, in document order ("(none)"
// when there are none).
func RuleProposerRequest(a failure.Analysis, p *prompt.Prompt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Failures in the last %d training episodes (%d failed), by cause, most frequent first:\n", a.Episodes, a.Failures)
	ranked := a.Ranked()
	for _, c := range ranked {
		fmt.Fprintf(&b, "- %s: %d\n", c, a.Count(c))
	}
	b.WriteString("The agent's rules now:\n")
	var rules []string
	for _, r := range p.RulesConstraints {
		if r = strings.TrimSpace(r); r != "" {
			rules = append(rules, r)
		}
	}
	injected := map[string]bool{}
	if specs, err := render.SectionSpecs(p); err == nil {
		for _, s := range specs {
			injected[s.Name] = s.Kind == render.Injected
		}
	}
	for _, s := range p.Sections {
		if injected[s.Name] {
			continue
		}
		for _, line := range strings.Split(s.Text, "\n") {
			if m, t := splitMarker(line); m != "" && t != "" {
				rules = append(rules, t)
			}
		}
	}
	if len(rules) == 0 {
		b.WriteString("(none)\n")
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	if len(ranked) > 0 {
		fmt.Fprintf(&b, "Write one new rule for the failure cause %s.", ranked[0])
	}
	return b.String()
}

// CleanRuleLine returns the rule line of a model's reply: its first line
// that holds a letter or digit, with a leading list marker ("-", "*",
// "•", "1.", "1)"), a "Rule:" label and quotes or backticks around it
// removed, runs of white space made one space, and trimmed; "" if no line
// holds a letter or digit. It never shortens a rule (a line that is too
// long is the caller's to drop).
func CleanRuleLine(reply string) string {
	for _, line := range strings.Split(reply, "\n") {
		s := strings.Join(strings.Fields(line), " ")
		for changed := true; changed; {
			before := s
			s = strings.TrimSpace(s)
			for _, m := range []string{"- ", "* ", "• ", "+ "} {
				s = strings.TrimPrefix(s, m)
			}
			if i := strings.IndexAny(s, ".)"); i > 0 && i <= 3 && isDigits(s[:i]) && len(s) > i+1 && s[i+1] == ' ' {
				s = s[i+2:]
			}
			if len(s) > 5 && strings.EqualFold(s[:5], "rule:") {
				s = s[5:]
			}
			s = strings.TrimSpace(s)
			for _, q := range [][2]string{{`"`, `"`}, {"'", "'"}, {"`", "`"}, {"“", "”"}, {"‘", "’"}, {"«", "»"}, {"**", "**"}} {
				if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
					s = s[len(q[0]) : len(s)-len(q[1])]
				}
			}
			changed = s != before
		}
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return s
		}
	}
	return ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
