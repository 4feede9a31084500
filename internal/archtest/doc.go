// Package archtest holds no code: its test checks that the imports among
// evolve's packages keep to the floors of docs/architecture.md (no import
// runs from a lower floor to a higher one, no cycle, every package placed)
// and that folders show the floors (no package stands above the floor of
// a folder it lies under, the floor of the folder's root package).
package archtest
