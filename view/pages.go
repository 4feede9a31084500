package view

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
)

//go:embed templates
var templateFS embed.FS

// statusError is an error and the HTTP status it answers with.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// failWith wraps err with the status code it answers with.
func failWith(code int, err error) error { return &statusError{code, err} }

// statusOf returns the HTTP status of an error: its statusError's code,
// else 500.
func statusOf(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	return http.StatusInternalServerError
}

// Page is one page of evolve view: its path pattern (net/http's
// ServeMux syntax), the template that draws it and the function that
// builds its data. The same data is the page's JSON under /api/v1.
type Page struct {
	// Path is the page's pattern, e.g. "/runs/{id}".
	Path string
	// API is the pattern of its JSON: "/api/v1" followed by Path
	// ("/api/v1/" for the runs page, whose path is "/").
	API string
	// Doc says in one line what the page shows.
	Doc string
	// Template names the file under templates/ that draws it.
	Template string
	// Type is the Go type of its data (for the schema test and the docs).
	Type any
	data func(s *Server, r *http.Request) (any, error)
}

// Pages lists every page in the order docs/view.md documents them.
var Pages = []Page{
	{"/{$}", "/api/v1/{$}", "the runs and evals table, replicates grouped (live)", "runs", RunsJSON{}, (*Server).runsData},
	{"/runs/{id}", "/api/v1/runs/{id}", "a run (settings, stop, lineage, decisions, failures, parameters, plots, files) or an eval (its verdict first)", "run", RunJSON{}, (*Server).runData},
	{"/runs/{id}/episodes", "/api/v1/runs/{id}/episodes", "the episodes, filtered, sorted and paged on the server (ParseQuery)", "episodes", EpisodePage{}, (*Server).episodesData},
	{"/runs/{id}/episodes/{split}/{version}/{seed}", "/api/v1/runs/{id}/episodes/{split}/{version}/{seed}", "one episode and its replay (the first page of frames; ?step=N picks the page)", "episode", EpisodeDetail{}, (*Server).episodeData},
	{"/runs/{id}/versions/{version}", "/api/v1/runs/{id}/versions/{version}", "a version's prompt, parameters and diff against its parent", "version", VersionJSON{}, (*Server).versionData},
	{"/compare", "/api/v1/compare", "two runs, evals or versions side by side under the eval's own gate", "compare", CompareJSON{}, (*Server).compareData},
}

// pageHead is what the layout needs of a page's data: its title, its
// breadcrumbs and whether it polls (a running run).
type pageHead interface {
	title() string
	crumbs() []LinkJSON
	live() bool
}

// templates are the parsed pages, by Page.Template, each with the
// shared layout.
var templates = func() map[string]*template.Template {
	fm := template.FuncMap{
		"params": func(id string, p *ParametersJSON) paramsView { return paramsView{id, p} },
		"sel":    selectOf,
		"sides":  func(d *CompareJSON) []Side { return []Side{d.A, d.B} },
		"json": func(v any) (template.JS, error) {
			b, err := json.Marshal(v)
			return template.JS(b), err
		},
		"int64": func(n int) int64 { return int64(n) },
		"trackX": func(step, n int) string {
			return strconv.FormatFloat(596*float64(step)/float64(max(1, n-1)), 'f', 1, 64)
		},
	}
	for k, f := range funcs {
		fm[k] = f
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"runs", "run", "episodes", "episode", "version", "compare", "error"} {
		out[name] = template.Must(template.New("layout.html").Funcs(fm).ParseFS(templateFS,
			"templates/layout.html", "templates/parts.html", "templates/"+name+".html"))
	}
	return out
}()

// layoutData is what the layout executes: the page's head and data.
type layoutData struct {
	Title  string
	Crumbs []LinkJSON
	Live   bool
	Page   any
}

// errorPage is the data of the error page.
type errorPage struct {
	Code int
	Err  string
}

func (e errorPage) title() string      { return "error" }
func (e errorPage) crumbs() []LinkJSON { return nil }
func (e errorPage) live() bool         { return false }

// servePage serves a page drawn by its template.
func (s *Server) servePage(p Page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := p.data(s, r)
		name := p.Template
		code := http.StatusOK
		if err != nil {
			code, name = statusOf(err), "error"
			d = errorPage{Code: code, Err: err.Error()}
		}
		head := d.(pageHead)
		var b bytes.Buffer
		if err := templates[name].Execute(&b, layoutData{Title: head.title(), Crumbs: head.crumbs(), Live: head.live(), Page: d}); err != nil {
			http.Error(w, fmt.Sprintf("drawing the page: %v", err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if code != http.StatusOK {
			w.WriteHeader(code)
			w.Write(b.Bytes())
			return
		}
		writeBody(w, r, b.Bytes())
	}
}

// serveAPI serves a page's data as JSON.
func (s *Server) serveAPI(p Page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := p.data(s, r)
		if err != nil {
			httpError(w, err, statusOf(err))
			return
		}
		writeJSON(w, r, d)
	}
}

// crumb is a breadcrumb.
func crumb(text, url string) LinkJSON { return LinkJSON{Text: text, URL: url} }

// selectView is a filter's drop-down: its name and options.
type selectView struct {
	Name   string
	Values []option
}

type option struct {
	Value    string
	Selected bool
}

func selectOf(p *EpisodePage, name string, values []string) selectView {
	s := selectView{Name: name}
	for _, v := range values {
		s.Values = append(s.Values, option{v, p.Selected(name, v)})
	}
	return s
}
