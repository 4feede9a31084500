// Package guard screens text before it enters the prompt store: every
// prompt section, task definition, rule, skill description, metadata string
// and rollback reason is checked, and a text that fails any check is
// rejected and never stored.
//
// [Policy.Check] runs these checks on each text, in order:
//
//  1. Encoding: the text must be valid UTF-8 and contain no NUL byte
//     ([InvalidEncoding], reported once, at the first bad byte).
//  2. Length: the text must have at most [Policy.MaxChars] characters
//     (Unicode code points; [TooLong]).
//  3. Forbidden patterns: no match of any [Policy.Patterns] regexp, tried in
//     order ([MetaOverride], [SafetyBypass], [SystemPromptDisclosure],
//     [RoleReassignment] for [DefaultPatterns]).
//
// Every check runs on every text, so one report lists all problems at once.
// Any issue rejects the text: there is no sanitizing. [Policy.Error] returns
// the same result as an [*Error], which matches [ErrRejected] under
// errors.Is, for callers that only need to stop.
//
// The default patterns are case-insensitive English phrases; the words of a
// phrase may be separated by any run of white space or invisible format
// characters (Unicode category Cf, e.g. U+200B ZERO WIDTH SPACE), so hiding
// a phrase behind zero-width characters between its words does not evade
// the check. They follow the categories of the "Prompt Validation" section
// of the layered prompt stack (shared/reference/layered-prompt-stack.md).
package guard
