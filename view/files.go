package view

import (
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// MaxListedFiles bounds the files a run page lists (RunJSON.AllFiles);
// every file is served whether listed or not.
const MaxListedFiles = 5000

// fileCSP is the Content-Security-Policy of every file served from a
// run directory: no script runs, whatever the file holds (report.html
// keeps its inline styles and images).
const fileCSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

// contentTypes are the types of a run's files that mime does not know,
// or knows under a type a browser would run or render unsafely.
var contentTypes = map[string]string{
	".parquet": "application/vnd.apache.parquet",
	".zip":     "application/zip",
	".json":    "application/json",
	".jsonl":   "application/jsonl",
	".cast":    "application/x-asciicast",
	".yaml":    "text/plain; charset=utf-8",
	".yml":     "text/plain; charset=utf-8",
	".md":      "text/plain; charset=utf-8",
	".tex":     "text/plain; charset=utf-8",
	".txt":     "text/plain; charset=utf-8",
	".log":     "text/plain; charset=utf-8",
	".csv":     "text/csv; charset=utf-8",
	".xml":     "text/plain; charset=utf-8",
	".js":      "text/plain; charset=utf-8",
	".lock":    "text/plain; charset=utf-8",
}

// contentType returns the Content-Type a run's file is served with.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// allowedFile reports whether name may name a file of a run: a relative,
// '/'-separated path already clean (no "." or ".." element, no empty
// element), without a backslash or NUL, and with no element starting
// with '.' (hidden and temporary files).
func allowedFile(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || path.Clean(name) != name || path.IsAbs(name) {
		return false
	}
	for _, el := range strings.Split(name, "/") {
		if el == "" || strings.HasPrefix(el, ".") {
			return false
		}
	}
	return true
}

// file serves any regular file of a run or eval directory read-only,
// with its content type (contentType) and fileCSP: Parquet tables,
// plots, reports, trajectories. The name must pass allowedFile, and the
// file is opened through an os.Root of the directory, so that neither
// ".." nor a symbolic link reaches outside it. Errors are 404s naming
// the file.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !allowedFile(name) {
		httpError(w, fmt.Errorf("%q is not a file name evolve view serves (a relative path without '.' or '..' elements or hidden files)", name), http.StatusNotFound)
		return
	}
	run := s.lookup(w, r.PathValue("id"))
	if run == nil {
		return
	}
	dir := run.entry.Dir
	run.mu.Unlock()
	root, err := os.OpenRoot(dir)
	if err != nil {
		httpError(w, fmt.Errorf("%s: %w", run.entry.Key, err), http.StatusNotFound)
		return
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		httpError(w, fmt.Errorf("%s: not found in %s", name, run.entry.Key), http.StatusNotFound)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		httpError(w, fmt.Errorf("%s: not a file", name), http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType(name))
	h.Set("Content-Security-Policy", fileCSP)
	if t := h.Get("Content-Type"); !strings.HasPrefix(t, "text/") && !strings.HasPrefix(t, "image/") && t != "application/pdf" {
		h.Set("Content-Disposition", "attachment; filename="+fmt.Sprintf("%q", path.Base(name)))
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
}

// listFiles returns the regular files under dir that file serves,
// sorted by name, at most MaxListedFiles; what cannot be read is left
// out.
func listFiles(dir, id string) []FileJSON {
	out := []FileJSON{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if len(out) >= MaxListedFiles {
			return fs.SkipAll // the same first files, without walking the rest
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		name := filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, FileJSON{Name: name, Bytes: fi.Size(), URL: "/files/" + url.PathEscape(id) + "/" + escapePath(name)})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// escapePath escapes each element of a '/'-separated path.
func escapePath(p string) string {
	els := strings.Split(p, "/")
	for i, el := range els {
		els[i] = url.PathEscape(el)
	}
	return strings.Join(els, "/")
}
