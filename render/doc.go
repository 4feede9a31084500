// Package render turns a prompt version into the messages a language
// model reads each turn: a stack of layers, sections as XML blocks,
// {{name}} placeholders resolved in phases, and a cl100k_base token
// budget.
//
// New builds a Renderer once per version, in these steps:
//
//  1. the layers, in their fixed order (LayerNames): the guardrails
//     (DefaultGuardrails or Options.Guardrails: literal rules, always
//     first), the task (task_definition, rules_constraints,
//     skill_descriptions in priority order, policy_parameters), the
//     sections in their declared order (SectionSpecs: mutable, frozen or
//     injected), the history and the runtime message;
//  2. the overlays of Options.Layers, each appending to or replacing one
//     layer; replacing or removing the guardrails is refused
//     (ErrGuardrails), and so is a replace that changes a frozen section
//     (ErrFrozen);
//  3. every text parsed as a Template (a malformed "{{" is a *ParseError);
//  4. the static placeholders ({{slug}}, {{version}}, ...) and then the
//     computed ones ({{param.NAME}}, {{env.name}}, {{causes}}) resolved
//     once through the Registry; one without a value is an
//     *UnresolvedError naming it, its phase and its text;
//  5. the parts that need no runtime value rendered, and the system
//     message's tokens counted if no part of it changes per turn.
//
// Turn then renders one turn:
//
//  1. the runtime placeholders ({{observation}}, {{turn}}, {{history}}),
//     the injected sections, and the overrides of Runtime.Vars, each
//     substituted in one pass (a value is never parsed again, so a value
//     holding "{{version}}" stays literal);
//  2. the system message: each part as "<name>\n...\n</name>", its text
//     escaped (Escape) so that no part can open or close a tag;
//  3. the messages: system, the history, and the runtime message as user;
//  4. their cl100k_base tokens (CountMessages); over
//     Options.MaxPromptTokens, the history is dropped oldest first, then
//     the runtime message is cut and ends with TruncationMarker;
//     Rendered records the tokens, the messages dropped and whether it
//     was cut.
//
// Tokens are counted with github.com/pkoukk/tiktoken-go and the BPE ranks
// that github.com/pkoukk/tiktoken-go-loader embeds: no network is used.
package render
