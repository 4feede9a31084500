package guard

import (
	"regexp"
	"strings"
)

// Category classifies an issue. Its values are the constants below; they
// are stable, as they appear in JSON output.
type Category string

// Categories of issue. The four pattern categories group the
// [DefaultPatterns]; TooLong and InvalidEncoding come from the length and
// encoding checks.
const (
	// MetaOverride: an attempt to make the model drop its instructions
	// ("ignore previous instructions").
	MetaOverride Category = "meta_override"
	// SafetyBypass: an attempt to switch off safety measures
	// ("disable safety", "jailbreak").
	SafetyBypass Category = "safety_bypass"
	// SystemPromptDisclosure: an attempt to extract the hidden prompt
	// ("reveal your system prompt").
	SystemPromptDisclosure Category = "system_prompt_disclosure"
	// RoleReassignment: an attempt to give the model another identity
	// ("you are now ...").
	RoleReassignment Category = "role_reassignment"
	// TooLong: the text has more characters than Policy.MaxChars.
	TooLong Category = "too_long"
	// InvalidEncoding: the text is not valid UTF-8 or contains a NUL byte.
	InvalidEncoding Category = "invalid_encoding"
)

// Pattern is one forbidden pattern.
type Pattern struct {
	// Name is a stable identifier in snake_case, e.g.
	// "ignore_previous_instructions"; it is Issue.Pattern of its matches.
	Name string
	// Category is the category of its matches.
	Category Category
	// Regexp is matched against the text as is (no normalization); every
	// non-overlapping match is an issue. It must not be nil.
	Regexp *regexp.Regexp
}

// sep matches what may separate two words of a default pattern: white
// space (including Unicode spaces and the vertical tab, which \s omits)
// and invisible format characters such as U+200B ZERO WIDTH SPACE.
const sep = `[\s\v\p{Z}\p{Cf}]+`

// phrase compiles a case-insensitive regexp in which each space of expr
// stands for sep.
func phrase(expr string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + strings.ReplaceAll(expr, " ", sep))
}

// defaultPatterns is compiled once; DefaultPatterns copies it. A
// *regexp.Regexp is immutable and safe for concurrent use, so sharing
// them is safe.
var defaultPatterns = []Pattern{
	// meta_override
	{"ignore_previous_instructions", MetaOverride, phrase(
		`\b(?:ignore|disregard|forget|override) (?:(?:all|any|the|of) ){0,2}` +
			`(?:(?:previous|prior|above|earlier|preceding|your|system) ){1,2}` +
			`(?:instructions|prompts?|rules|directions|guidelines|context)\b`)},
	{"forget_everything", MetaOverride, phrase(
		`\bforget (?:all|everything) (?:you (?:were|have been|'ve been|’ve been) told|above|before)\b`)},
	// At a line start; the match includes the line's indentation.
	{"new_instructions", MetaOverride, regexp.MustCompile(
		`(?im)^[\t \p{Zs}\p{Cf}]*new` + sep + `instructions[\t \p{Zs}\p{Cf}]*:`)},

	// safety_bypass
	{"disable_safety", SafetyBypass, phrase(
		`\b(?:disable|bypass|turn off|deactivate|remove|ignore|circumvent) (?:(?:the|your|all|any) ){0,2}` +
			`(?:safety|guardrails?|content filters?|filters|safeguards|restrictions)\b`)},
	{"jailbreak", SafetyBypass, phrase(`\bjailbreak(?:s|ing|ed)?\b`)},
	{"developer_mode", SafetyBypass, phrase(`\bdeveloper mode\b`)},

	// system_prompt_disclosure
	{"reveal_system_prompt", SystemPromptDisclosure, phrase(
		`\b(?:reveal|show|print|repeat|output|display|leak|tell|disclose|dump) (?:me )?(?:your|the) ` +
			`(?:(?:full|entire|complete|whole|exact) )?` +
			`(?:system prompt|system instructions|hidden instructions|initial instructions|` +
			`original instructions|instructions above|prompt above)\b`)},
	{"ask_system_prompt", SystemPromptDisclosure, phrase(
		`\bwhat(?:'s|’s| (?:is|are|was|were)) your (?:system prompt|(?:initial |hidden |original )?instructions)\b`)},

	// role_reassignment
	{"you_are_now", RoleReassignment, phrase(`\byou(?: are|'re|’re) now\b`)},
	{"you_are_no_longer", RoleReassignment, phrase(`\byou(?: are|'re|’re) no longer\b`)},
	{"from_now_on_you", RoleReassignment, phrase(`\bfrom now on,? you (?:are|will|act|must)\b`)},
	{"pretend_to_be", RoleReassignment, phrase(`\bpretend (?:to be|(?:that )?you(?: are|'re|’re))\b`)},
	{"your_new_role", RoleReassignment, phrase(`\byour new (?:role|persona|identity) is\b`)},
	{"assume_the_role", RoleReassignment, phrase(`\bassume the (?:role|persona|identity) of\b`)},
	{"act_as_unrestricted", RoleReassignment, phrase(
		`\bact as (?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken)\b`)},
	{"roleplay_as", RoleReassignment, phrase(`\brole(?:-| )?play(?:ing)? as\b`)},
}

// DefaultPatterns returns the default forbidden patterns: 16 case-insensitive
// English phrases, grouped by category (meta_override, safety_bypass,
// system_prompt_disclosure, role_reassignment), whose words may be separated
// by any run of white space or Unicode format characters (Cf). Each call
// returns a fresh slice, which the caller may modify; the regexps are shared
// and immutable.
func DefaultPatterns() []Pattern {
	return append([]Pattern(nil), defaultPatterns...)
}
