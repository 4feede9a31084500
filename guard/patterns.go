package guard

import "regexp"

// Category classifies an issue. Its values are the constants below; they
// are stable, as they appear in JSON output.
type Category string

// Categories of issue. The four pattern categories group the
// [DefaultIntents] and [DefaultPatterns]; TooLong and InvalidEncoding come from the length and
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
	// Name is a stable identifier in snake_case, e.g. "new_instructions";
	// it is Issue.Pattern of its matches.
	Name string
	// Category is the category of its matches.
	Category Category
	// Regexp is matched against the normalized text (see Normalize:
	// lowercase, format characters and marks dropped, confusables mapped),
	// so it should be written in lowercase ASCII; every non-overlapping
	// match is an issue, reported at its place in the original text. It
	// must not be nil.
	Regexp *regexp.Regexp
}

// defaultPatterns is compiled once; DefaultPatterns copies it. A
// *regexp.Regexp is immutable and safe for concurrent use, so sharing
// them is safe.
var defaultPatterns = []Pattern{
	// At a line start; the match includes the line's indentation.
	{"new_instructions", MetaOverride, regexp.MustCompile(
		`(?m)^[\t \p{Zs}]*(?:new|updated|revised|real|actual|override)[\t \p{Zs}]+` +
			`(?:instructions|directives|orders|system prompt)[\t \p{Zs}]*:`)},
}

// DefaultPatterns returns the default forbidden patterns, which complete
// DefaultIntents: new_instructions (meta_override), a line that starts
// with "new instructions:" (or "updated", "revised", "real", "actual",
// "override" with "instructions", "directives", "orders", "system
// prompt"). Each call returns a fresh slice, which the caller may modify;
// the regexps are shared and immutable.
func DefaultPatterns() []Pattern {
	return append([]Pattern(nil), defaultPatterns...)
}
