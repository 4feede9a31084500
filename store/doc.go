// Package store keeps prompt versions on disk as a version graph: one
// immutable YAML file per version (package prompt's document), an index of
// versions and edges, branches, rollback, migrations, and the online
// observation log and weights that evolve serve records.
//
// A Store is a directory:
//
//	versions.json             the index: every version and every edge (schema 2)
//	versions.lock             the writers' lock (flock)
//	SLUG/vX.Y.Z.yaml          one immutable file per version
//	observations.jsonl        the online observation log (append-only; see Store.Observe)
//	weights.json              every version's online weight and rollback detector, replayed from the log
//
// Versions of a slug are unique across its branches. Edges relate them:
// supersedes (a version became HEAD of its branch in place of the previous
// HEAD: the linear chain of the branch), branched_from (the first version
// of a branch and its fork point), inherits_from (a prompt and its
// parent) and rolled_back (HEAD moved back to a former HEAD, with a
// reason). HEAD of a (slug, branch) is never stored: it is the version
// named by the branch's latest HEAD-moving edge, or its first version if
// no edge moved it (see Graph.Head), so it is always exactly one version.
//
// Writes: Write (a version at a given version number, e.g. a candidate of
// an evolution run), Append (the next version of a branch, allocated
// under the lock by prompt.BumpFor and prompt.NextVersion, made HEAD), Supersede (accept
// a candidate), Branch, Rollback, Promote, Migrate and Observe (online
// observations: EMA weights, and an automatic rollback of a HEAD whose
// scores drop, under the same lock). Each runs under an exclusive
// flock, creates files without ever replacing one, and replaces the index
// atomically, so concurrent processes never corrupt the index or write a
// version twice. A failed write removes the files it created. Every text
// that enters the store is screened by a guard.Policy (at most 8,000
// characters per text; no meta-override, safety-bypass, system-prompt
// disclosure or role-reassignment pattern); rejected text is never
// written. Slugs, branch names and versions are validated so that no name
// can leave the store's directory.
//
// # Migrations
//
// DecodeMigration reads a JSON or YAML list of entries (slug, type,
// branch, sections, metadata, tags, policy parameters, ...); Store.Migrate
// applies them all or not at all, after a dry run of exactly the same
// writes that collects every problem with its entry index, line and field.
// Migration.Check and CheckFile check a migration's entries (or a prompt
// file) on their own, without a store, as evolve prompt validate does.
//
// # Reading
//
// Graph.ParseRef reads a reference argument (SLUG, SLUG@BRANCH,
// SLUG@vX.Y.Z, or in a store of one prompt vX.Y.Z, @BRANCH), telling the
// caller's mistakes (*RefError) from the store's state. OpenExisting opens
// a store only if it exists (ErrNoStore). Graph.BranchHeads and Store.Log
// are the listings of evolve prompt list and log; WriteBranchHeads,
// WriteLog and MigrationPlan.WriteText are their text forms, as the
// command prints them.
package store
