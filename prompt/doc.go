// Package prompt holds the structured agent prompt document: its schema,
// canonical YAML, sections, semantic versions, diff and inheritance.
//
// # The document
//
// A Prompt is one version: its identity (slug, type, branch, semantic
// version), free tags and metadata, named sections, the frozen agent
// parts (task definition, rules, skill descriptions), the mutable policy
// parameters and the mutation history with its statistical evidence.
// Encode writes the canonical YAML and its content_sha256; Decode reads a
// file strictly (unknown keys, wrong types, out-of-range values and an
// edited file are errors naming the file, line and field).
//
// # Inheritance
//
// A prompt may inherit from another (inherits_from: a slug, a branch HEAD
// or a pinned version). Resolve follows the chain and Merge applies it:
// parent sections first, a child's section of the same name extends the
// parent's, a section the child lists in override_sections replaces it,
// and the agent parts come from the child if it has them, else from the
// parent. Resolution is a pure function; what rendering and agents see is
// the resolved prompt. A chain that comes back to a slug is a *CycleError
// naming the cycle, and the store refuses any write or HEAD move that
// would make a version unresolvable.
//
// The store of versions on disk (files, index, graph, migrations, the
// online observation log and weights) is package store.
package prompt
