package nethack

import (
	"fmt"
	"slices"
	"strings"
)

// Random is the value of a character field (Config.Role, Race, Gender,
// Alignment) that leaves the choice to the game: NetHack picks a value
// compatible with the other fields with its own random number generator,
// which the episode seed drives, so the same seed gives the same
// character. It is NLE's "@" (NetHackChallenge's character="@"), and
// "@" is accepted as its synonym.
const Random = "random"

// roleInfo is one of NetHack 3.6's 13 roles: its name (as the role option
// takes it) and the races, genders and alignments it allows (role.c's
// allow masks).
type roleInfo struct {
	name    string // "Valkyrie"
	code    string // "Val", the xlogfile's role
	races   []string
	genders []string
	aligns  []string
}

var (
	allGenders = []string{"male", "female"}
	// roles are NetHack 3.6.6's roles and their allow masks (src/role.c).
	roles = []roleInfo{
		{"Archeologist", "Arc", []string{"human", "dwarf", "gnome"}, allGenders, []string{"lawful", "neutral"}},
		{"Barbarian", "Bar", []string{"human", "orc"}, allGenders, []string{"neutral", "chaotic"}},
		{"Caveman", "Cav", []string{"human", "dwarf", "gnome"}, allGenders, []string{"lawful", "neutral"}},
		{"Healer", "Hea", []string{"human", "gnome"}, allGenders, []string{"neutral"}},
		{"Knight", "Kni", []string{"human"}, allGenders, []string{"lawful"}},
		{"Monk", "Mon", []string{"human"}, allGenders, []string{"lawful", "neutral", "chaotic"}},
		{"Priest", "Pri", []string{"human", "elf"}, allGenders, []string{"lawful", "neutral", "chaotic"}},
		{"Rogue", "Rog", []string{"human", "orc"}, allGenders, []string{"chaotic"}},
		{"Ranger", "Ran", []string{"human", "elf", "gnome", "orc"}, allGenders, []string{"neutral", "chaotic"}},
		{"Samurai", "Sam", []string{"human"}, allGenders, []string{"lawful"}},
		{"Tourist", "Tou", []string{"human"}, allGenders, []string{"neutral"}},
		{"Valkyrie", "Val", []string{"human", "dwarf"}, []string{"female"}, []string{"lawful", "neutral"}},
		{"Wizard", "Wiz", []string{"human", "elf", "gnome", "orc"}, allGenders, []string{"neutral", "chaotic"}},
	}
	// raceAligns are the alignments each race allows (src/role.c's races).
	raceAligns = map[string][]string{
		"human": {"lawful", "neutral", "chaotic"},
		"elf":   {"chaotic"},
		"dwarf": {"lawful"},
		"gnome": {"neutral"},
		"orc":   {"chaotic"},
	}
	raceNames  = []string{"human", "elf", "dwarf", "gnome", "orc"}
	alignNames = []string{"lawful", "neutral", "chaotic"}
)

// Character is the hero's role, race, gender and alignment as given in a
// Config, each a value of RoleNames, RaceNames, GenderNames or
// AlignmentNames, or Random.
type Character struct{ Role, Race, Gender, Alignment string }

// RoleNames returns NetHack 3.6's role names in lower case, the values
// of Config.Role besides Random (a role's three-letter code, e.g. "val",
// is accepted too).
func RoleNames() []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = strings.ToLower(r.name)
	}
	return out
}

// normalise returns v in lower case, with "@" as Random.
func normalise(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "@" {
		return Random
	}
	return v
}

// role returns the role named by v (a name or three-letter code, any
// case), or false.
func role(v string) (roleInfo, bool) {
	for _, r := range roles {
		if v == strings.ToLower(r.name) || v == strings.ToLower(r.code) {
			return r, true
		}
	}
	return roleInfo{}, false
}

// Validate returns an error naming the field and value that is not a
// known value, or the fields whose values no NetHack character combines
// (e.g. role valkyrie with gender male: Valkyries are female), with the
// values allowed.
func (c Character) Validate() error {
	r, race, g, a := normalise(c.Role), normalise(c.Race), normalise(c.Gender), normalise(c.Alignment)
	rl, ok := role(r)
	if !ok && r != Random {
		return fmt.Errorf("role: %q is not a NetHack role, want one of %s or %s", c.Role, strings.Join(RoleNames(), ", "), Random)
	}
	if race != Random && !slices.Contains(raceNames, race) {
		return fmt.Errorf("race: %q is not a NetHack race, want one of %s or %s", c.Race, strings.Join(raceNames, ", "), Random)
	}
	if g != Random && !slices.Contains(allGenders, g) {
		return fmt.Errorf("gender: %q is not a NetHack gender, want one of %s or %s", c.Gender, strings.Join(allGenders, ", "), Random)
	}
	if a != Random && !slices.Contains(alignNames, a) {
		return fmt.Errorf("alignment: %q is not a NetHack alignment, want one of %s or %s", c.Alignment, strings.Join(alignNames, ", "), Random)
	}
	if r == Random {
		if race != Random && a != Random && !slices.Contains(raceAligns[race], a) {
			return fmt.Errorf("race %q and alignment %q: a %s is %s", c.Race, c.Alignment, race, strings.Join(raceAligns[race], " or "))
		}
		return nil
	}
	name := strings.ToLower(rl.name)
	switch {
	case race != Random && !slices.Contains(rl.races, race):
		return fmt.Errorf("role %q and race %q: a %s is %s", c.Role, c.Race, name, strings.Join(rl.races, ", "))
	case g != Random && !slices.Contains(rl.genders, g):
		return fmt.Errorf("role %q and gender %q: a %s is %s", c.Role, c.Gender, name, strings.Join(rl.genders, " or "))
	case a != Random && !slices.Contains(rl.aligns, a):
		return fmt.Errorf("role %q and alignment %q: a %s is %s", c.Role, c.Alignment, name, strings.Join(rl.aligns, ", "))
	case race != Random && a != Random && !slices.Contains(raceAligns[race], a):
		return fmt.Errorf("race %q and alignment %q: a %s is %s", c.Race, c.Alignment, race, strings.Join(raceAligns[race], " or "))
	}
	if race == Random && a != Random {
		// Some race the role allows must allow the alignment.
		for _, rc := range rl.races {
			if slices.Contains(raceAligns[rc], a) {
				return nil
			}
		}
		return fmt.Errorf("role %q and alignment %q: no race of a %s is %s", c.Role, c.Alignment, name, a)
	}
	return nil
}

// options returns the game options that choose the character, e.g.
// "role:Valkyrie,race:human,gender:female,align:neutral"; c must be valid.
func (c Character) options() string {
	r := normalise(c.Role)
	if rl, ok := role(r); ok {
		r = rl.name
	}
	return "role:" + r + ",race:" + normalise(c.Race) + ",gender:" + normalise(c.Gender) + ",align:" + normalise(c.Alignment)
}
