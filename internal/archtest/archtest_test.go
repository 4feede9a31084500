package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
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
	Dir        string
	GoFiles    []string // the package's files for this platform, not its tests
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

// folderBreak is a package that stands above the floor of a folder it
// lies under: pkg (floor floor) under the folder whose root package is
// root (floor rootFloor).
type folderBreak struct {
	pkg       string
	floor     int
	root      string
	rootFloor int
}

// checkFolders returns the packages of floors (package paths relative to
// the module, each with its floor) that stand above a folder they lie
// under, in path order. A folder's floor is the floor of the package at
// its root; a folder without a root package (internal/, cmd/) has no
// floor of its own, and each folder under it stands alone. Every
// enclosing folder with a root package is checked, not only the nearest.
func checkFolders(floors map[string]int) []folderBreak {
	var out []folderBreak
	for _, p := range slices.Sorted(maps.Keys(floors)) {
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if f, ok := floors[dir]; ok && floors[p] > f {
				out = append(out, folderBreak{pkg: p, floor: floors[p], root: dir, rootFloor: f})
			}
		}
	}
	return out
}

// TestFolders fails on a package that stands above the floor of a folder
// it lies under (checkFolders), so that a folder's name says its floor.
func TestFolders(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := filepath.Join(root, "docs", "architecture.md")
	rows := readFloors(t, doc)
	floors := map[string]int{}
	for p := range listPackages(t, root) {
		if r, ok := floorOf(rows, rel(p)); ok {
			floors[rel(p)] = r.floor
		}
	}
	for _, b := range checkFolders(floors) {
		t.Errorf("%s (floor %d) lies under %s/ (floor %d, its root package's): move it to a folder on floor %d or higher, or split the folder",
			b.pkg, b.floor, b.root, b.rootFloor, b.floor)
	}
}

// TestCheckFolders checks the folder rule on small package maps, those
// that break it included.
func TestCheckFolders(t *testing.T) {
	for _, c := range []struct {
		name   string
		floors map[string]int
		want   []folderBreak
	}{
		{"empty", nil, nil},
		{"below the root", map[string]int{"envs": 2, "envs/dungeon": 0, "envs/process": 2}, nil},
		{"above the root", map[string]int{"envs": 1, "envs/dungeon": 0, "envs/process": 2},
			[]folderBreak{{"envs/process", 2, "envs", 1}}},
		{"no root package", map[string]int{"internal/atomicfile": 0, "internal/castore": 1, "cmd/evolve": 6}, nil},
		{"deep, through a folder without a package", map[string]int{"stats": 0, "stats/internal/simulate": 2},
			[]folderBreak{{"stats/internal/simulate", 2, "stats", 0}}},
		{"every enclosing root", map[string]int{"a": 0, "a/b": 1, "a/b/c": 2},
			[]folderBreak{{"a/b", 1, "a", 0}, {"a/b/c", 2, "a/b", 1}, {"a/b/c", 2, "a", 0}}},
		{"a name prefix is no folder", map[string]int{"online": 0, "onlineserve": 4}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := checkFolders(c.floors); !slices.Equal(got, c.want) {
				t.Errorf("checkFolders(%v) = %v; want %v", c.floors, got, c.want)
			}
		})
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

// maxPackageLines is the most lines of Go a package may hold outside its
// tests and generated files (docs/architecture.md): past it, a package
// holds more than one concept.
const maxPackageLines = 6000

// TestPackageSize fails on a package whose hand-written Go (its GoFiles
// less those that declare themselves generated, as go/ast.IsGenerated
// reads the "Code generated ... DO NOT EDIT." line) exceeds
// maxPackageLines lines.
func TestPackageSize(t *testing.T) {
	root := filepath.Join("..", "..")
	for path, p := range listPackages(t, root) {
		lines := 0
		for _, f := range p.GoFiles {
			name := filepath.Join(p.Dir, f)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(token.NewFileSet(), name, data, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if ast.IsGenerated(file) {
				continue
			}
			lines += bytes.Count(data, []byte("\n"))
		}
		if lines > maxPackageLines {
			t.Errorf("%s: %d lines of Go outside tests and generated files, more than %d: split it by concept (docs/architecture.md)", rel(path), lines, maxPackageLines)
		}
	}
}
