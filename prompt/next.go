package prompt

import (
	"slices"

	"evolve/params"
)

// NextVersion returns the next version from base for bump b that is not
// in existing: patch gives vX.Y.(largest patch of vX.Y.* + 1), minor
// vX.(largest minor of vX.* + 1).0, major v(largest major + 1).0.0.
// Versions allocated one after another from one base (each added to
// existing) are distinct and depend only on existing, not on its order:
// from {v1.0.0}: v1.0.1, v1.0.2, then minor v1.1.0, v1.2.0.
func NextVersion(base Version, b Bump, existing []Version) Version {
	switch b {
	case BumpMinor:
		next := Version{base.Major, base.Minor + 1, 0}
		for _, v := range existing {
			if v.Major == base.Major && v.Minor >= next.Minor {
				next.Minor = v.Minor + 1
			}
		}
		return next
	case BumpMajor:
		next := Version{base.Major + 1, 0, 0}
		for _, v := range existing {
			if v.Major >= next.Major {
				next.Major = v.Major + 1
			}
		}
		return next
	}
	next := Version{base.Major, base.Minor, base.Patch + 1}
	for _, v := range existing {
		if v.Major == base.Major && v.Minor == base.Minor && v.Patch >= next.Patch {
			next.Patch = v.Patch + 1
		}
	}
	return next
}

// BumpFor returns the bump the change from old to new calls for, by the
// versioning rule of the design: BumpMajor if a frozen part changed (type,
// inherits_from, override_sections, sections, task_definition,
// rules_constraints, skill_descriptions, or whether there are policy
// parameters at all), BumpMinor if the skill priority was reordered,
// BumpPatch otherwise (numeric parameters, tags, metadata, or nothing).
func BumpFor(old, new *Prompt) Bump {
	refEq := func(a, b *Ref) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	if old.TypeOrDefault() != new.TypeOrDefault() || !refEq(old.InheritsFrom, new.InheritsFrom) ||
		!slices.Equal(old.OverrideSections, new.OverrideSections) || !slices.Equal(old.Sections, new.Sections) ||
		old.TaskDefinition != new.TaskDefinition || !slices.Equal(old.RulesConstraints, new.RulesConstraints) ||
		!slices.Equal(old.SkillDescriptions, new.SkillDescriptions) || old.HasPolicy() != new.HasPolicy() ||
		!slices.Equal(paramNames(old.PolicyParameters), paramNames(new.PolicyParameters)) {
		return BumpMajor
	}
	for _, p := range new.PolicyParameters {
		if v, _ := old.PolicyParameters.Get(p.Name); p.Value.Kind == params.Ordering && !p.Value.Equal(v) {
			return BumpMinor
		}
	}
	return BumpPatch
}
