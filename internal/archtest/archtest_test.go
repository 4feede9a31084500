package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the module path of evolve (go.mod).
const module = "evolve"

// row is one line of the floor table: a package path relative to the
// module root ("store"), or a subtree pattern ("guard/...").
type row struct {
	floor   int
	pattern string
	line    int
}

// rowRE matches a row of the floor table: | FLOOR | `pkg`, `pkg/...` | job |.
var rowRE = regexp.MustCompile("^\\|\\s*(\\d+)\\s*\\|([^|]*)\\|")

// pkgRE matches one backquoted package pattern in a row's second cell.
var pkgRE = regexp.MustCompile("`([a-z0-9_/.]+)`")

// readFloors parses the floor table of docs/architecture.md.
func readFloors(t *testing.T, path string) []row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		m := rowRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fl, _ := strconv.Atoi(m[1])
		for _, p := range pkgRE.FindAllStringSubmatch(m[2], -1) {
			rows = append(rows, row{floor: fl, pattern: p[1], line: n})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no floor table (rows like | 2 | `store` | job |)", path)
	}
	return rows
}

// floorOf returns the floor of package rel (a path relative to the
// module) by the most specific row: an exact row before a pattern, and a
// longer pattern before a shorter one. ok is false if no row places it.
func floorOf(rows []row, rel string) (r row, ok bool) {
	best := -1
	for _, x := range rows {
		spec := -1
		switch {
		case x.pattern == rel:
			spec = 1 << 20
		case strings.HasSuffix(x.pattern, "/..."):
			base := strings.TrimSuffix(x.pattern, "/...")
			if rel == base || strings.HasPrefix(rel, base+"/") {
				spec = len(base)
			}
		}
		if spec > best {
			best, r, ok = spec, x, true
		}
	}
	return r, ok
}

// pkg is what go list -json says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

// listPackages runs go list -deps -json over the module's packages (not
// their tests) and returns the module's own packages.
func listPackages(t *testing.T, root string) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH:", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./...: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module != nil && p.Module.Path == module {
			pkgs[p.ImportPath] = p
		}
	}
	return pkgs
}

func rel(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// TestFloors fails on an import that runs from a lower floor to a higher
// one, and on a package of the module that the table does not place.
func TestFloors(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := filepath.Join(root, "docs", "architecture.md")
	rows := readFloors(t, doc)
	pkgs := listPackages(t, root)
	var paths []string
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		from, ok := floorOf(rows, rel(p))
		if !ok {
			t.Errorf("%s is on no floor: add a row for it to the table of %s", rel(p), doc)
			continue
		}
		for _, imp := range pkgs[p].Imports {
			if _, own := pkgs[imp]; !own {
				continue
			}
			to, ok := floorOf(rows, rel(imp))
			if ok && to.floor > from.floor {
				t.Errorf("%s (floor %d, %s:%d) imports %s (floor %d, %s:%d): an import runs upward",
					rel(p), from.floor, doc, from.line, rel(imp), to.floor, doc, to.line)
			}
		}
	}
	if !t.Failed() {
		t.Logf("%d packages on %d rows keep to their floors", len(paths), len(rows))
	}
}

// TestNoCycles fails on a cycle among the module's packages (go build
// refuses one too; this names it whole).
func TestNoCycles(t *testing.T) {
	pkgs := listPackages(t, filepath.Join("..", ".."))
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(p string) []string
	visit = func(p string) []string {
		color[p] = grey
		stack = append(stack, p)
		for _, imp := range pkgs[p].Imports {
			if _, own := pkgs[imp]; !own {
				continue
			}
			switch color[imp] {
			case grey:
				i := slices.Index(stack, imp)
				return append(slices.Clone(stack[i:]), imp)
			case white:
				if c := visit(imp); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[p] = black
		return nil
	}
	var paths []string
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if color[p] == white {
			if c := visit(p); c != nil {
				t.Fatalf("import cycle: %s", strings.Join(c, " -> "))
			}
		}
	}
}

// TestFloorOf checks the placing rule on a small table.
func TestFloorOf(t *testing.T) {
	rows := []row{{0, "online", 1}, {4, "online/...", 2}, {0, "guard/...", 3}, {2, "store", 4}}
	for _, c := range []struct {
		pkg   string
		floor int
		ok    bool
	}{
		{"online", 0, true}, {"online/serve", 4, true}, {"guard", 0, true}, {"guard/internal/bayes", 0, true},
		{"store", 2, true}, {"storex", 0, false}, {"onlinex", 0, false},
	} {
		r, ok := floorOf(rows, c.pkg)
		if ok != c.ok || (ok && r.floor != c.floor) {
			t.Errorf("floorOf(%q) = %d, %v; want %d, %v", c.pkg, r.floor, ok, c.floor, c.ok)
		}
	}
}
