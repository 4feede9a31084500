// Command cmd rewrites the embedded seed files of package seeds; run it
// from the repository root: go run ./seeds/internal/gen/cmd
package main

import (
	"log"
	"os"
	"path/filepath"

	"evolve/seeds/internal/gen"
)

func main() {
	files, err := gen.Files()
	if err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join("seeds", name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
