// Package view is evolve view: a read-only local web app over run and
// eval directories (package rundir finds them). It serves
//
//	/                                          the runs table (live: it polls while a run is going)
//	/runs/{id}                                 a run: settings, stop reason, lineage, decisions, failures (cause × version,
//	                                           top killed_by, the mix around each accepted mutation), parameters (table,
//	                                           slice plot), plots, files (live while running);
//	                                           an eval: its verdict first, its gate, checks and baseline, its failures
//	/files/{id}/{name...}                      any file of a run or eval, read-only
//	/runs/{id}/episodes                        the episodes, filtered, sorted and paged on the server
//	                                           (split, version, cause, variant, seed, generation, min, max,
//	                                           metric and metric_value, sort, desc, page, size: ParseQuery)
//	/runs/{id}/episodes/{split}/{version}/{seed}  one episode, its trajectory replayed
//	/runs/{id}/versions/{version}              a version's rendered prompt and its diff against its parent
//	/compare?a=ID[:VERSION]&b=ID[:VERSION]     two runs, evals or versions side by side
//
// Each page is one embedded HTML shell whose script (assets/app.js, no
// network beyond this server) draws it from the JSON API under /api/
// (the same paths with /api in front, and /api/runs for the table). An
// {id} is a directory's rundir.Entry.Key with '/' written as '~'. Every
// regular file of a run or eval (Parquet tables, plots, reports,
// trajectory archives) is served read-only from /files/{id}/NAME with
// its content type and a policy that runs no script.
//
// Nothing is written: every handler reads, and only GET and HEAD are
// answered. Paths stay inside the directories given: a directory is
// reached only through its listed key, a phase's trajectory archive only
// by a name package trajectory accepts, and a run's file only by a name
// that is clean and relative (no "." or ".." element, no hidden file),
// opened through an os.Root of the directory so that no symbolic link
// leads out of it. A server on a non-loopback address needs a token
// (Config.Token, at least 16 characters and no white space, as evolve
// serve's: httpguard.CheckToken): given as ?token=T once (it is then
// kept in a cookie) or as "Authorization: Bearer T". With or without a
// token, a Host header that is not an IP address, localhost, the
// machine's name, the host of Config.Addr or one of Config.AllowedHosts
// gets 403 (package httpguard), so that a web page cannot rebind its own
// DNS name to a loopback server and read it.
//
// Episodes are read once per run (episodes.parquet, reloaded when it
// changes) and kept in memory, about 200 bytes per episode (18 MB for
// 10^5 with the dungeon's 13 metrics); a page of them is filtered and
// sorted in memory. At most MaxLoadedRuns runs are kept loaded.
package view
