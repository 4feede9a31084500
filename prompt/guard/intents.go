package guard

// The vocabulary of the default intents. Each list is written from the
// meaning of its category, not fitted to single attacks: a word belongs if
// an attacker could use it in that role and ordinary agent or game text
// rarely does in the same sentence as a word of the other list. Phrases
// are stemmed (see stem), so "ignore" also stands for "ignored",
// "ignores" and "ignoring"; a phrase has at most maxSpan words.

// Words that point at the instructions a model was given.
var (
	// instructionNouns name instructions.
	instructionNouns = []string{
		"instruction", "instructions", "rule", "rules", "directive", "directives",
		"direction", "directions", "guideline", "guidelines", "guidance", "orders",
		"commands", "behaviour", "behavior", "prompt", "prompts", "programming", "constraint", "constraints",
		"context", "policy", "policies", "training", "conditioning", "configuration",
		"briefing", "mandate", "protocol", "protocols", "requirement",
		"requirements", "principle", "principles", "preamble",
		"system message", "system messages", "teaching", "teachings", "specification",
		"commandment", "commandments",
	}
	// earlierQualifiers say that instructions came before or are hidden.
	earlierQualifiers = []string{
		"previous", "previously", "prior", "earlier", "above", "preceding", "foregoing",
		"before", "beforehand", "original", "originally", "initial", "initially", "existing",
		"configured", "system", "hidden", "secret", "developer", "developers",
		"old", "older", "given", "provided", "supplied", "loaded", "preloaded", "preset",
		"built in", "builtin", "baked in", "underlying", "internal", "former", "current",
		"standing", "aforementioned", "above mentioned", "so far", "until now", "up to now",
		"to date", "heretofore", "first", "told", "said", "programmed", "upstream",
	}
	// possessives point at the model's own instructions when they modify
	// the noun ("your rules", "all instructions").
	possessives = []string{"your", "all", "any", "every", "all of your", "all your", "any of your"}
	// everything and earlierTimes together point at all that came before
	// ("everything above", "all of that").
	everything   = []string{"everything", "anything", "all", "whatever"}
	earlierTimes = []string{
		"above", "before", "earlier", "previously", "prior", "preceding", "told", "said",
		"given", "so far", "until now", "up to now", "heretofore", "until this point",
	}
	// toldPhrases point at what the model was told.
	toldPhrases = []string{
		"you were told", "you have been told", "you've been told", "you were given",
		"you have been given", "you've been given", "you were instructed",
		"you have been instructed", "you were programmed", "you were trained",
		"were you told", "were you given", "were you instructed",
	}
)

// placeAbove voids "above" when it names a place ("the text above the
// map"), not the earlier part of the prompt.
var placeAbove = newLexicon("above the", "above a", "above an", "above your", "above each",
	"above every", "above it", "above its", "above them", "above his", "above her", "above all")

// metaOverride: override verbs with a reference to earlier or hidden
// instructions.
var metaOverride = &rule{
	trigger: newLexicon(
		"ignore", "disregard", "forget", "aside", "override", "overrule", "overwrite",
		"bypass", "skip", "discard", "abandon", "dismiss", "drop", "cancel", "revoke",
		"rescind", "retract", "nullify", "void", "invalidate", "invalid", "supersede",
		"scrap", "ditch", "throw out", "throw away", "erase", "delete", "wipe", "purge",
		"reset", "null", "obsolete", "outdated", "expired", "moot", "lifted", "suspend",
		"suspended", "irrelevant", "meaningless", "unlearn", "neglect", "pay no attention",
		"pay no heed", "take no notice", "no need", "replace", "replaced", "clear",
		"leave behind", "move past", "move beyond", "free yourself", "break free",
		"cancelled", "canceled", "defunct", "rewrite", "annul", "repeal", "out of your mind",
		"out of mind", "behind you", "gone", "no more", "wiped", "dead", "over with",
	),
	// Compliance words count when negated: "do not follow", "no longer apply".
	negated: newLexicon(
		"follow", "obey", "heed", "respect", "observe", "honor", "honour", "adhere",
		"comply", "listen", "apply", "valid", "bind", "binding", "bound", "matter", "hold",
		"count", "relevant", "stand", "stick", "keep", "abide", "remember", "care",
		"need", "in effect", "in force", "exist", "active", "effective", "govern",
		"restrict", "limit", "constrain",
	),
	objects: []object{
		{a: newLexicon(instructionNouns...), b: newLexicon(earlierQualifiers...), bNot: placeAbove, win: 3},
		{a: newLexicon(instructionNouns...), b: newLexicon(possessives...), win: 1},
		{a: newLexicon(everything...), b: newLexicon(earlierTimes...), bNot: placeAbove, win: 3},
		{a: newLexicon(toldPhrases...)},
		{a: newLexicon("them", "those", "these", "all of them", "all of that", "all of this"), anaphor: true},
	},
	window: 6,
}

// safetyBypass: verbs that switch something off with a safety measure.
var safetyBypass = &rule{
	alone: newLexicon("safety off", "safety disabled", "safety offline", "guardrails off",
		"filters off", "filter off", "censorship off", "moderation off", "no filters", "no filter",
		"no censorship", "no moderation", "no guardrails", "no safeguards", "no content filter",
		"no content filters", "no ethical guidelines", "no safety filters", "no safety guidelines",
		"no ethics", "no morals", "zero filters", "zero restrictions"),
	trigger: newLexicon(
		"disable", "deactivate", "bypass", "circumvent", "evade", "get around",
		"work around", "turn off", "switch off", "shut off", "shut down", "off", "remove",
		"lift", "drop", "strip", "suspend", "relax", "loosen", "waive", "ignore",
		"disregard", "override", "skip", "neutralize", "neutralise", "defeat",
		"get rid of", "do away with", "dispense with", "unlock", "eliminate", "abandon",
		"forget", "break out of", "without", "free from", "free of",
		"break", "undo", "dismantle", "sidestep", "avoid", "break free", "uninstall", "pause",
	),
	objects: []object{
		// "safety" alone is common in game advice ("flee to safety").
		{a: newLexicon("safety", "safe mode"), tight: true},
		{a: newLexicon(
			"safeguard", "safeguards", "guardrail", "guardrails", "filter",
			"filters", "filtering", "moderation", "censorship", "censor", "alignment",
			"ethics", "ethical", "morals", "morality", "refusal", "refusals",
			"content policy", "usage policy", "safety policy", "content policies",
			"ethical guidelines", "safety guidelines", "safety checks", "safety protocols",
			"self censorship", "harm prevention", "trust and safety",
		)},
		// Weak objects name a safety measure only with a modifier:
		// "your restrictions", not "all restrictions" (game text).
		{a: newLexicon(
			"restriction", "restrictions", "limit", "limits", "limitation", "limitations",
			"constraint", "constraints", "boundary", "boundaries", "protection",
			"protections", "check", "checks", "policy", "policies", "rules", "training",
			"programming", "principles", "scruples", "inhibitions",
		), b: newLexicon(
			"your", "ethical", "moral", "safety", "content", "usage", "built in", "builtin",
			"imposed", "ai", "model", "programmed", "hardcoded", "hard coded", "openai",
			"anthropic", "developer", "developers", "trained", "the assistant's",
			"on you", "on yourself", "the model's",
		), win: 2},
	},
	window: 5,
}

// systemPromptDisclosure: exfiltration verbs with the hidden prompt.
var systemPromptDisclosure = &rule{
	trigger: newLexicon(
		"reveal", "show", "print", "repeat", "output", "display", "leak", "tell", "disclose",
		"dump", "echo", "recite", "quote", "copy", "paste", "write out", "spell out",
		"read out", "read back", "type out", "list", "share", "expose", "return", "give",
		"provide", "send", "summarize", "summarise", "paraphrase", "translate", "what is",
		"what are", "what was", "what were", "what does", "what did", "what rules",
		"what instructions", "what prompt", "what guidelines", "what directives",
		"which rules", "which instructions", "describe", "see", "know", "reproduce", "divulge", "write down",
		"emit", "restate", "transcribe", "recall", "read", "render", "export", "upload",
		"post", "encode", "base64", "which", "reiterate", "regurgitate",
	),
	objects: []object{
		{a: newLexicon(
			"system prompt", "system prompts", "system message", "developer message",
			"developer prompt", "preprompt", "pre prompt", "meta prompt", "metaprompt",
			"hidden prompt", "initial prompt", "original prompt", "secret prompt",
			"first user message", "first message", "start of the conversation",
			"start of this conversation", "beginning of the conversation",
			"beginning of this conversation", "before the conversation",
			"before this conversation", "before our conversation", "context window",
			"before my message", "before my first message", "prompt above",
			"above this line", "above this message", "before this message", "before this line",
			"above this point", "before the first user message", "before the user message",
		)},
		{a: newLexicon(toldPhrases...)},
		// Instructions with a hidden or possessive qualifier.
		{a: newLexicon(
			"prompt", "prompts", "instruction", "instructions", "directive", "directives",
			"guideline", "guidelines", "rules", "configuration", "programming", "preamble",
			"setup", "policy", "policies", "context", "orders", "briefing", "spec",
		), b: newLexicon(
			"system", "hidden", "secret", "initial", "initially", "original", "developer",
			"underlying", "internal", "preceding", "your", "above", "confidential",
			"private", "invisible", "concealed", "behind the scenes", "real", "true",
		), bNot: placeAbove, win: 3},
		// Generic text words with a position before the conversation.
		{a: newLexicon("text", "words", "content", "contents", "everything", "message", "messages"),
			b: newLexicon("above", "preceding", "hidden", "system", "initial", "secret", "original",
				"invisible", "confidential"), bNot: placeAbove, win: 3},
	},
	window: 8,
}

// Persona words: cues that set who the model is, and markers of an
// unrestricted persona.
var personaOverride = &rule{
	trigger: newLexicon(
		"you are now", "you're now", "you are", "you're", "you will now be", "you will be",
		"you'll be", "you shall be", "you become", "become", "act as", "behave as",
		"behave like", "respond as", "answer as", "speak as", "reply as", "henceforth",
		"hereafter", "from now on", "from this point", "from here on", "going forward",
		"starting now", "for the rest of this conversation", "simulate", "emulate",
		"persona", "mode", "identity", "you must now", "you can now", "you may now",
	),
	objects: []object{
		{a: newLexicon(
			"unrestricted", "unfiltered", "uncensored", "unbound", "unshackled", "unchained",
			"unconstrained", "unmoderated", "unaligned", "amoral", "unethical", "lawless",
			"dan", "do anything now", "no limits", "no limit",
			"no restrictions", "no rules", "no filters", "no filter", "no boundaries",
			"no constraints", "no guidelines", "no ethics", "no morals", "no censorship",
			"no restraints", "no safety", "without limits", "without restrictions",
			"without rules", "without filters", "without boundaries", "without constraints",
			"without guidelines", "without ethics", "without morals", "without censorship",
			"without any", "anything goes", "never refuse", "never refuses", "not bound",
			"no longer bound", "no longer restricted", "no longer limited",
			"no longer an ai", "no longer an assistant", "no longer a language model",
			"no longer an agent", "no longer a model", "not an ai", "free of", "free from",
			"obey", "obey me", "root", "superuser", "administrator", "admin", "sudo",
			"answer anything", "do anything", "say anything", "no longer have",
			"all powerful", "limitless", "beyond rules", "above the rules", "evil ai",
			"evil assistant", "evil model", "evil bot", "evil chatbot",
		)},
	},
	window: 8,
}

// newPersona: phrases that give the model another identity by themselves.
var newPersona = &rule{
	alone: newLexicon(
		"pretend to be", "pretend you are", "pretend you're", "pretend that you are",
		"pretend that you're", "roleplay as", "role play as", "let us roleplay", "let us role play",
		"roleplay with me", "roleplay a", "roleplay an", "your new role", "your new persona",
		"your new identity", "your new name", "your true self", "your real self",
		"assume the role", "assume the persona", "assume the identity", "adopt the persona",
		"adopt the role", "adopt the identity", "take on the persona", "take on the role",
		"play the role", "play the part", "in character as", "stay in character",
		"impersonate", "alter ego", "new persona", "new identity", "switch personas",
		"switch persona", "you are no longer an ai", "you are no longer an assistant",
		"you are no longer a language model", "you're no longer an ai",
		"stop being an ai", "stop being an assistant", "forget you are an ai",
		"forget that you are an ai", "forget you're an ai",
	),
}

// jailbreak: the word itself and its well-known names.
var jailbreak = &rule{alone: newLexicon(
	"jailbreak", "jailbreaking", "jailbroken", "jail break", "jail broken", "do anything now",
	"dan prompt", "dan jailbreak",
)}

// developerMode: special modes that promise to lift restrictions.
var developerMode = &rule{alone: newLexicon(
	"developer mode", "dev mode", "god mode", "sudo mode", "admin mode", "debug mode",
	"unrestricted mode", "unfiltered mode", "uncensored mode", "dan mode", "maintenance mode",
	"root mode", "superuser mode", "evil mode", "chaos mode",
)}

// defaultIntents is built once; DefaultIntents copies it. Rules are
// immutable after init, so sharing them is safe.
var defaultIntents = []Intent{
	{"ignore_previous_instructions", MetaOverride, metaOverride},
	{"disable_safety", SafetyBypass, safetyBypass},
	{"jailbreak", SafetyBypass, jailbreak},
	{"developer_mode", SafetyBypass, developerMode},
	{"reveal_system_prompt", SystemPromptDisclosure, systemPromptDisclosure},
	{"persona_override", RoleReassignment, personaOverride},
	{"new_persona", RoleReassignment, newPersona},
}

// DefaultIntents returns the default intents, in the order they are
// tried:
//
//   - ignore_previous_instructions (meta_override): an override verb
//     (ignore, disregard, forget, set aside, override, bypass, void, ...;
//     or a negated compliance word: "do not follow", "no longer apply")
//     within 6 words of a reference to earlier or hidden instructions (an
//     instruction noun within 3 words of previous, prior, earlier, above,
//     system, configured, your, ...; "everything above"; "what you were
//     told");
//   - disable_safety (safety_bypass): a verb that switches off (disable,
//     bypass, turn off, remove, lift, without, no, ...) within 5 words of a
//     safety measure (safety, guardrails, content filter, moderation,
//     censorship, ethics; or restrictions, limits, checks with a modifier
//     such as "your" or "ethical");
//   - jailbreak, developer_mode (safety_bypass): "jailbreak", "do anything
//     now"; "developer mode", "god mode" and similar;
//   - reveal_system_prompt (system_prompt_disclosure): an exfiltration
//     verb (print, reveal, repeat, show, what is, ...) within 8 words of
//     the hidden prompt (system prompt, your instructions, hidden rules,
//     the text above, "the first user message", ...);
//   - persona_override (role_reassignment): a persona cue (you are now, act
//     as, from now on, henceforth, ...) within 8 words of an unrestricted
//     persona (unrestricted, no limits, without rules, DAN, root, ...);
//   - new_persona (role_reassignment): "pretend to be", "roleplay", "your
//     new persona", "assume the role", ...
//
// All words must be in one sentence (sentences end at ".", "!", "?" and
// blank lines). A trigger preceded within 3 words by a negator (not,
// never, don't, stop, without, ...) does not count: "never reveal your
// system prompt" is a rule, not an attack. Each call returns a fresh
// slice, which the caller may modify; the intents are shared and
// immutable.
func DefaultIntents() []Intent {
	return append([]Intent(nil), defaultIntents...)
}
