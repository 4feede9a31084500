// Package rundir finds the run and eval directories under a set of root
// directories and reads what evolve runs and evolve view show of them:
// ID, kind, status, times, generations, accepted versions, test means and
// stop reason. It only reads; the one system call that is not a read is a
// shared, non-blocking flock(2) on run.lock or eval.lock, released at
// once, to tell a running directory from a stopped one.
//
// The steps of List, in order:
//  1. walk each root recursively, taking every directory that holds a
//     checkpoint.json (a run's or an eval's) and not descending into it;
//  2. read its checkpoint, manifest.yaml if finished, and generations.parquet
//     (a run) or summary.parquet (an eval);
//  3. derive the status from the lock, the checkpoint and the sessions;
//  4. sort by start time, newest first, then by directory.
package rundir
