// Package rundir owns the run directory and the eval directory: what
// they hold and how it is named, written, locked and read back.
//
// Writers (package experiment for a run, package eval for an eval) and
// readers (evolve runs, evolve view, package report) go through it for:
//   - the file names (CheckpointFile, ManifestFile, EpisodesFile, ...);
//   - the checkpoint, one versioned type per kind (Run, Eval, with their
//     Settings and Sessions), read with errors naming the file and the
//     field (ReadRun, ReadEval) and written atomically (WriteCheckpoint);
//   - the manifest (RunManifest, EvalManifest; ReadRunManifest,
//     ReadEvalManifest, WriteManifest);
//   - the lock a live process holds (LockDir, Lock.Release, Locked);
//   - a running run's progress within its current phase (Progress,
//     ProgressFile; WriteProgress, ReadProgress, RemoveProgress);
//   - the stop reasons of a run's loop and their text (StopPatience, ...,
//     StopText).
//
// List and Read find the run and eval directories under a set of root
// directories and read what evolve runs and evolve view show of them:
// ID, kind, status, times, generations, accepted versions, test means and
// stop reason. They only read; the one system call that is not a read is
// a shared, non-blocking flock(2) on run.lock or eval.lock, released at
// once, to tell a running directory from a stopped one (Locked).
//
// The steps of List, in order:
//  1. walk each root recursively, taking every directory that holds a
//     checkpoint.json (a run's or an eval's) and not descending into it;
//  2. read its checkpoint, manifest.yaml if finished, and a run's
//     prompts/versions.json (its accepted versions) or a finished eval's
//     summary.parquet (its means);
//  3. derive the status from the lock, the checkpoint and the sessions;
//  4. sort by start time, newest first, then by directory.
package rundir
