// Package view is evolve view: a read-only local web app over run and
// eval directories (package rundir finds them). Its pages (Pages) are
//
//	/                                             the runs table (live: it polls while open)
//	/runs/{id}                                    a run (settings, stop reason, lineage, decisions numbered
//	                                              from 0 with each generation's α, failures, parameters,
//	                                              plots, files; live while running) or an eval (its verdict first)
//	/runs/{id}/episodes                           the episodes, filtered, sorted and paged on the server (ParseQuery)
//	/runs/{id}/episodes/{split}/{version}/{seed}  one episode and its replay (?step=N)
//	/runs/{id}/versions/{version}                 a version's prompt and its diff against its parent
//	/compare?a=ID[&av=V]&b=ID[&bv=V][&c=ID...]    two runs, evals or versions side by side
//	/files/{id}/{name...}                         any file of a run or eval, read-only
//
// Each page is drawn on the server with html/template: one data struct
// per page (RunsJSON, RunJSON, EpisodePage, EpisodeDetail, VersionJSON,
// CompareJSON), one shared layout, the templates embedded
// (templates/). The script assets/app.js only adds interaction: the
// replay player, live updates, sorting. The same data is the page's
// JSON under /api/v1 followed by the page's path (snake_case keys from
// tagged structs; the committed schema is testdata/api_schema.golden),
// and a replay's further frames are FramesAPI; docs/view.md documents
// both. An {id} is a directory's rundir.Entry.Key with '/' written as
// '~'.
//
// A replay is expanded on the server (Decode): a dungeon record
// replayed, an asciicast recording played through hinshun/vt10x (the
// emulator envs/nethack uses) with its colours, an LLM transcript read,
// a process environment's list of per-step objects made a table. Its
// frames are sent in pages of FramePage steps, each frame holding what
// changed since the previous one.
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
