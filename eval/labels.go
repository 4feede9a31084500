package eval

import "fmt"

// ResolvePrompts resolves each argument with ResolvePrompt (store is the
// --store directory of store refs, "" for none) and makes the labels
// unique with LabelVersions: the versions of an eval, in argument order.
// The first argument that does not resolve is the error.
func ResolvePrompts(args []string, store string) ([]Version, error) {
	var versions []Version
	for _, a := range args {
		v, err := ResolvePrompt(a, store)
		if err != nil {
			return nil, err
		}
		versions = append(versions, *v)
	}
	LabelVersions(versions)
	return versions, nil
}

// LabelVersions makes the labels of vs unique, in place: a label shared
// by two versions becomes SLUG@LABEL (two prompts at the same version),
// and a label still shared after that gains its argument, "LABEL
// (SOURCE)" (one version named twice). Unique labels are left as they are.
func LabelVersions(vs []Version) {
	count := map[string]int{}
	for _, v := range vs {
		count[v.Label]++
	}
	for i := range vs {
		if count[vs[i].Label] > 1 {
			vs[i].Label = vs[i].Prompt.SlugOrDefault() + "@" + vs[i].Label
		}
	}
	count = map[string]int{}
	for _, v := range vs {
		count[v.Label]++
	}
	for i := range vs {
		if count[vs[i].Label] > 1 {
			vs[i].Label = fmt.Sprintf("%s (%s)", vs[i].Label, vs[i].Source)
		}
	}
}
