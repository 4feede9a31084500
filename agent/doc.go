// Package agent holds the agents that act in an environment under a
// prompt version: the dungeon's scripted agent, and the language-model
// agent with the reply parsing and function calling it needs.
//
// # The dungeon's scripted agent
//
// Scripted tries five skills each turn (explore, fight, flee, eat,
// use_item) in the order of skill_priority and takes the first that
// applies, under the thresholds, limits and risk tolerance of the
// prompt's policy parameters. Schema declares those parameters (name,
// type, range, step, unit, doc) for every package that validates,
// mutates, stores or reports them, NetHack's scripted player included;
// BaseParameters are those of the base prompt v1.0.0.
//
// DungeonEnv is the built-in environment "dungeon": the game of
// envs/dungeon played by Scripted. DungeonInfo declares its failure
// causes, metrics, parameters and mutation table, and Classify names an
// episode's cause. A recorded episode is a DungeonRecord, one byte per
// step, which ExpandDungeon replays into its turns.
//
// # The language-model agent
//
// A model chooses each turn's action from the rendered prompt version (the
// system message), up to LLMOptions.History previous turns, and the turn's
// observation as text, within LLMOptions.MaxPromptTokens (package render
// builds the messages; FitsBudget checks a candidate's system text before
// it is played). A Session is one episode's conversation: it asks, parses
// the reply, and after an unusable one sends a correction and asks again,
// up to LLMOptions.MaxTries; then it takes the fallback action and counts
// it. Its counts are the episode's LLMMetrics, the columns a replay from
// the response cache reproduces exactly.
//
// LLMEpisode and DungeonEnv.UseLLM play the dungeon with a Session;
// StepAgent plays the declared actions of a step-mode process environment
// (envs/process), and NetHack's language-model player (agent/nethack)
// builds on Session too. LLMModel is the llm.Client as a ChatModel. A
// Session records its Transcript when asked (envs.Episode.Record), and a
// ReplyTally counts the unusable replies across a run, so that a run
// stopped for too many fallbacks can show what the model said.
//
// # Reply parsing
//
// Parser.Parse reads the action a reply names as a person would: the
// reasoning blocks stripped (StripReasoning), then a bare name, a JSON
// object with an "action" key (also a tool call written as text), or the
// last "ACTION: NAME" label. A reply that names no action, or names two
// different ones, is unusable; CorrectionFor words the error as the
// message sent back to the model. DungeonParser and ParseAction read the
// dungeon's actions (ActionNames, with DungeonAliases for the prompt's
// skill names); ParseChoice reads any vocabulary.
//
// # Function calling
//
// With LLMOptions.FunctionCalling the turn's actions are offered as one
// function, ActionTool ("take_action", with one argument "action" whose
// enum is the action names), to a model that is an ActionModel. The
// call's arguments are parsed like a JSON reply, and a model that answers
// in text instead is read as always.
package agent
