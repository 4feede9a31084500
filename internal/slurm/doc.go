// Package slurm drives a Slurm cluster through its command-line tools
// (sbatch, squeue, scancel, sinfo), run with os/exec: the interface every
// site has, whatever its Slurm version and whether or not it runs
// slurmrestd or slurmdbd. It is the transport of evolve's Slurm executor,
// which cuts a phase's seeds into shards and runs each shard as one task of
// a job array.
//
// The steps of a job array's life, each one command:
//
//  1. SubmitArray writes a batch script that runs ArraySpec.Command into
//     ArraySpec.Dir and submits it with `sbatch --parsable --array=...`;
//     Slurm copies the script at submission, so the file is only a record.
//  2. ArrayStatus lists the state, node, exit code and reason of each task
//     with one `squeue -j ID -r -t all -h -O ...` call (pending records
//     such as "12_[3-7%2]" are expanded). Slurm forgets a task MinJobAge
//     (default 300 s) after it ends and restarts job IDs after a cold
//     start of its controller, so a task missing from the map is not an
//     error: the caller's own files (a shard's result and exit-code file)
//     are the record of what ran.
//  3. Cancel runs scancel on the job or on some of its tasks.
//
// What the package does not use, and why (measured on Slurm 22.05):
// sacct needs slurmdbd and exits 1 without it; --json output changes
// between versions; `sbatch --wait` polls every 2, 8, then 32 s. Callers
// poll ArrayStatus every few seconds instead.
//
// Available says whether a cluster answers; tests skip with its message
// when it does not (see the slurmtest package). scripts/slurm-dev-cluster
// starts a single-node cluster on loopback for tests and for trying the
// executor on one machine; docs/slurm.md says how to use a site's cluster.
package slurm
