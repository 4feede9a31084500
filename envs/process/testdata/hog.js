// A test environment (episode mode) in Node.js: seed 9 allocates
// JavaScript arrays until the heap runs out (under max_memory_mb), other
// seeds score seed * 10. Node reserves a large address space at start, so
// it does not even start under an RLIMIT_AS of a few hundred MiB.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "close") process.exit(0);
  if (msg.type === "hello") {
    send({ id: msg.id, type: "hello", protocol: 1, name: "hog", provides: ["environment", "agent"], mode: "episode",
      causes: [{ name: "bad" }], metrics: [{ name: "n", type: "int" }] });
    return;
  }
  const seed = msg.seed; // small seeds only: see docs/protocol.md on seeds above 2^53
  if (seed === 9) {
    const hog = [];
    for (;;) hog.push(new Array(1e6).fill(1.5));
  }
  send({ id: msg.id, type: "outcome", outcome: { score: seed * 10, end_reason: "done", cause: "none", metrics: { n: seed } } });
});
