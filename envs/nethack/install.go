package nethack

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// shimSource is the preload shim's C source (shim.c): it fixes the game's
// random bytes and clock from the environment and marks each read of a key.
//
//go:embed csrc/shim.c
var shimSource []byte

// Package is the Debian package that installs the default game binary.
const Package = "nethack-console"

// DefaultBinary is the game binary of Debian's nethack-console 3.6.6 (the
// real program, not the /usr/games/nethack wrapper script).
const DefaultBinary = "/usr/lib/games/nethack/nethack-console"

// dataFiles are the files a playground needs from the game's directory:
// nhdat (levels, dungeon, data), symbols and the licence.
var dataFiles = []string{"nhdat", "symbols", "license"}

// Install is what a player needs on disk, shared by all the players of one
// binary: the built shim and a private copy of the binary (without the
// setgid bit, which would make the dynamic loader ignore LD_PRELOAD).
type Install struct {
	dir     string // the cache directory holding the shim (shimName) and the game
	shim    string // path of the built shim
	binary  string // path of the private copy of the game
	dataDir string // the game's own directory (nhdat, symbols, license)
}

var (
	installMu    sync.Mutex
	installCache = map[string]*Install{}
)

// cacheRoot returns $EVOLVE_CACHE_DIR/nethack, or the user cache
// directory's evolve/nethack (~/.cache/evolve/nethack), or the temporary
// directory's evolve-cache/nethack.
func cacheRoot() string {
	if d := os.Getenv("EVOLVE_CACHE_DIR"); d != "" {
		return filepath.Join(d, "nethack")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "evolve", "nethack")
	}
	return filepath.Join(os.TempDir(), "evolve-cache", "nethack")
}

// ErrNotInstalled is returned (wrapped) when the game binary is missing;
// the message says how to install it on this platform.
var ErrNotInstalled = errors.New("NetHack is not installed")

// Prepare returns the install of binary, building the shim with the system
// C compiler (cc, or $CC; see buildShim) and copying the binary into the
// cache directory the first time. The cache directory is named by a hash
// of the shim's source and the binary's contents, so a changed shim or
// game gets a new one; files are written to a temporary name and renamed,
// so concurrent runs never see half a file.
func Prepare(binary string) (*Install, error) {
	installMu.Lock()
	defer installMu.Unlock()
	if in, ok := installCache[binary]; ok {
		return in, nil
	}
	bin, err := os.ReadFile(binary)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("binary: %s: %w (%s)", binary, ErrNotInstalled, installHint())
		}
		return nil, fmt.Errorf("binary: %w", err)
	}
	dataDir := filepath.Dir(binary)
	for _, f := range dataFiles[:1] {
		if _, err := os.Stat(filepath.Join(dataDir, f)); err != nil {
			return nil, fmt.Errorf("binary: %s: the game's data file %s is not beside it: %w", binary, f, err)
		}
	}
	h := sha256.New()
	h.Write(shimSource)
	h.Write(bin)
	dir := filepath.Join(cacheRoot(), hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("nethack cache: %w", err)
	}
	in := &Install{dir: dir, shim: filepath.Join(dir, shimName), binary: filepath.Join(dir, "nethack"), dataDir: dataDir}
	if _, err := os.Stat(in.shim); err != nil {
		if err := buildShim(dir, in.shim); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(in.binary); err != nil {
		if err := writeAtomic(in.binary, bin, 0o755); err != nil {
			return nil, fmt.Errorf("nethack cache: copying the game: %w", err)
		}
	}
	installCache[binary] = in
	return in, nil
}

// buildShim compiles shim.c into out with $CC or cc (shimArgs: a shared
// library on Linux, a dynamic library on macOS).
func buildShim(dir, out string) error {
	src := filepath.Join(dir, "shim.c")
	if err := writeAtomic(src, shimSource, 0o644); err != nil {
		return fmt.Errorf("nethack cache: %w", err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	tmp, err := os.CreateTemp(dir, "shim-*"+filepath.Ext(shimName))
	if err != nil {
		return fmt.Errorf("nethack cache: %w", err)
	}
	tmp.Close()
	cmd := exec.Command(cc, shimArgs(tmp.Name(), src)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("building the NetHack preload shim with %s (a C compiler is needed: %s): %v: %s", cc, compilerHint, err, b)
	}
	return os.Rename(tmp.Name(), out)
}

func writeAtomic(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// NewPlayground makes a private playground directory under the system's
// temporary directory, named for this process (playgroundName): links to
// the game's data files, empty perm, record, logfile and xlogfile, and
// save/. The game is started with -d on it.
func (in *Install) NewPlayground() (string, error) {
	dir, err := os.MkdirTemp("", playgroundPattern())
	if err != nil {
		return "", err
	}
	for _, f := range dataFiles {
		src := filepath.Join(in.dataDir, f)
		if _, err := os.Stat(src); err != nil {
			continue // only nhdat is required, checked by prepare
		}
		if err := os.Symlink(src, filepath.Join(dir, f)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	if err := ResetPlayground(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// ResetPlayground removes everything a game wrote in dir (lock, level,
// save and score files) and recreates the empty files a game needs.
func ResetPlayground(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range dataFiles {
		keep[f] = true
	}
	for _, e := range ents {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for _, f := range []string{"perm", "record", "logfile", "xlogfile"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			return err
		}
	}
	return os.Mkdir(filepath.Join(dir, "save"), 0o755)
}
